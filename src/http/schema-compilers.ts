import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/**
 * Fastify's own schema compilers (Ajv for requests, fast-json-stringify for responses), with what they compile kept
 * for every server this process builds. Compiling a server's route schemas costs ~0.3-0.45 s of CPU; the product
 * builds one server, but the tests build hundreds in each worker and paid that for every one. Fastify keeps one
 * compiler per set of shared schemas and options for one server; here that pool and each compiled function, keyed by
 * its schema's JSON text, outlive the server. Every server of the process is built with the same Fastify options, so
 * the options' JSON (which leaves out functions such as Ajv plugins) tells pools apart well enough.
 *
 * A schema is compiled when a request first needs it, or by compileDeferredSchemas, which `serve` runs once it
 * listens: the start no longer waits for every route's schemas (bench/RESULTS.md "The service's start").
 */
export function sharedSchemaCompilers(): CompilersFactory {
  return { buildValidator, buildSerializer };
}

const validatorPool = AjvCompiler();
const serializerPool = SerializerSelector();
const compiled = new Map<string, unknown>();

type Factory = (externalSchemas: unknown, options: unknown) => (route: { schema: unknown }) => unknown;

const buildValidator = remembering('validator', validatorPool as Factory) as CompilersFactory['buildValidator'];
const buildSerializer = remembering('serializer', serializerPool as Factory) as CompilersFactory['buildSerializer'];

function remembering(kind: string, factory: Factory): Factory {
  return (externalSchemas, options) =>
    remembered(`${kind} ${JSON.stringify(externalSchemas)} ${JSON.stringify(options)}`, factory(externalSchemas, options));
}

function remembered<Compiled>(pool: string, compile: (route: { schema: unknown }) => Compiled) {
  return (route: { schema: unknown }): Compiled => {
    const key = `${pool} ${JSON.stringify(route.schema)}`;
    let known = compiled.get(key) as Compiled | undefined;
    if (known === undefined) compiled.set(key, (known = deferred(() => compile(route) as Compiled & CompiledFunction)));
    return known;
  };
}

/**
 * A validator (Ajv's: Fastify reads its `errors` after a call that answered false, and passes the request as the
 * parent of the data when it has a `schemaEnv`, so that Ajv may replace a root value) or a serializer.
 */
type CompiledFunction = ((...args: unknown[]) => unknown) & { errors?: unknown; schemaEnv?: unknown };

const pending = new Set<() => unknown>();

/** Stands for the function `compile` makes, made at its first use or by compileDeferredSchemas. */
function deferred<Compiled extends CompiledFunction>(compile: () => Compiled): Compiled {
  let made: Compiled | undefined;
  const make = () => {
    if (made === undefined) {
      made = compile();
      pending.delete(make);
    }
    return made;
  };
  pending.add(make);
  const call = function (this: unknown, ...args: unknown[]) {
    return make().apply(this, args);
  };
  return Object.defineProperties(call, {
    errors: { get: () => make().errors },
    schemaEnv: { get: () => make().schemaEnv },
  }) as Compiled;
}

/**
 * Compiles every schema no request has needed yet, one a turn of the event loop so that requests go on meanwhile,
 * until `stopped` says the server is closing; a schema that does not compile rejects (a route answers 500 at its
 * first request with it).
 */
export async function compileDeferredSchemas(stopped = () => false): Promise<void> {
  for (const make of [...pending]) {
    if (stopped()) return;
    make();
    await new Promise((resolve) => setImmediate(resolve));
  }
}
