import type { FastifyReply, FastifyRequest } from 'fastify';

// Shared by test/integration/extensions-*.test.ts: controller subclasses as an extension would write them.

type Action = (this: object, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
// TypeScript's mixin rule: a class expression may extend a constructor type only with `...args: any[]`.
type ControllerClass = new (...args: any[]) => object;

/**
 * A subclass of `Base` that records the name of each of `actions` it handles in `log`, then calls the
 * built-in action through `super`, as an extension overriding every action would.
 */
export function recordingSubclass<T extends ControllerClass>(Base: T, actions: readonly string[], log: string[]): T {
  class Recording extends Base {}
  for (const name of actions) {
    const inherited = (Base.prototype as Record<string, unknown>)[name];
    if (typeof inherited !== 'function') throw new Error(`${Base.name} has no action ${name}`);
    Object.defineProperty(Recording.prototype, name, {
      value: async function recorded(this: object, request: FastifyRequest, reply: FastifyReply) {
        log.push(name);
        return (inherited as Action).call(this, request, reply);
      },
    });
  }
  return Recording;
}
