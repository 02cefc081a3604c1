import type { Prisma, PrismaClient } from './generated/client.js';

type Adapter = Prisma.PrismaClientOptionsWithAdapter['adapter'];
type Calls = Record<PropertyKey, (...args: unknown[]) => Promise<unknown>>;

/**
 * A PrismaClient that loads Prisma's runtime, query compiler and driver adapter on its first call. The hot paths and
 * the listings query through the lean SQL client (sql-client.ts), Prisma makes the admin writes, and loading it was
 * a third of a CLI command's time on a data folder (issue 30, bench/RESULTS.md): `apps list` no longer pays for it.
 * The calls made here are `prisma.<model>.<method>(...)`, `$transaction(work, options)` and `$disconnect()`; each
 * answers a promise, so each can wait for the client first. That promise runs its query at once: Prisma's deferred
 * PrismaPromise and the array form of `$transaction` (which takes those) are not used in this service.
 */
export function prismaOnFirstUse(adapterOf: () => Promise<Adapter>): PrismaClient {
  let client: Promise<PrismaClient> | undefined;
  const open = async () => {
    const [{ PrismaClient: Client }, adapter] = await Promise.all([import('./generated/client.js'), adapterOf()]);
    return new Client({ adapter });
  };
  const load = () => (client ??= open());
  const callsOf = (target: (client: PrismaClient) => unknown) =>
    new Proxy({} as Calls, {
      get:
        (_, method) =>
        (...args: unknown[]) =>
          load().then((loaded) => (target(loaded) as Calls)[method]!(...args)),
    });
  const clientCalls = callsOf((loaded) => loaded);
  const disconnect = async () => {
    // Never loaded (or failed to load): nothing to disconnect.
    const loaded = await client?.catch(() => undefined);
    await loaded?.$disconnect();
  };
  return new Proxy({} as PrismaClient, {
    get(_, name) {
      // Not a thenable: awaiting the client itself waits for nothing.
      if (typeof name !== 'string' || name === 'then') return undefined;
      if (name === '$disconnect') return disconnect;
      if (name.startsWith('$')) return clientCalls[name];
      return callsOf((loaded) => (loaded as unknown as Record<string, unknown>)[name]);
    },
  });
}
