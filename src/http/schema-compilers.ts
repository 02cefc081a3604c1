import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/**
 * Fastify's own schema compilers (Ajv for requests, fast-json-stringify for responses), with what they compile kept
 * for every server this process builds. Compiling a server's route schemas costs ~0.3 s of CPU at its start; the
 * product builds one server, but the tests build hundreds in each worker and paid that for every one. Fastify keeps
 * one compiler per set of shared schemas and options for one server; here that pool and each compiled function,
 * keyed by its schema's JSON text, outlive the server. Every server of the process is built with the same Fastify
 * options, so the options' JSON (which leaves out functions such as Ajv plugins) tells pools apart well enough.
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
    if (known === undefined) compiled.set(key, (known = compile(route)));
    return known;
  };
}
