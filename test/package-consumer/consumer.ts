// What a TypeScript project that depends on @oauth-service/guard or oauth-service compiles: imports through the
// packages' "exports" (the workspace link and a self-reference, so the declarations come from each dist/ exactly
// as an installed copy ships them). Checked by .ci/run after the production build; it is never run.
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { GuardMisconfiguredError, GuardUnavailableError, serviceGuard, type GuardLogger, type GuardToken } from '@oauth-service/guard';
import { serviceGuard as serviceGuardOldPath } from 'oauth-service/guard';
import { CONTROLLER_KEYS, TokensController } from 'oauth-service/controllers';

// oauth-service/guard, the guard's former name, still resolves to the same package.
export const samePlugin: typeof serviceGuard = serviceGuardOldPath;

const app = Fastify();
await app.register(serviceGuard, {
  mode: 'remote',
  introspectionUrl: 'https://auth.example.com/oauth/introspect',
  clientId: 'api',
  clientSecret: 'secret',
  logger: console satisfies GuardLogger,
});

// The plugin's declaration merging reaches the consumer: app.serviceAuthorize and request.serviceToken are typed.
app.get('/notes', { preHandler: app.serviceAuthorize('read') }, async (request) => {
  const token: GuardToken | null = await request.serviceToken();
  const scopes: readonly string[] = token?.scopes ?? [];
  return { owner: token?.resourceOwnerId ?? null, scopes };
});

app.setErrorHandler((error, _request, reply) => {
  if (error instanceof GuardUnavailableError) return reply.code(error.statusCode).send({ error: 'unavailable' });
  if (error instanceof GuardMisconfiguredError) return reply.code(error.statusCode).send({ error: error.serviceError });
  return reply.send(error);
});

// @ts-expect-error: the options are typed, so a remote guard without its introspection URL does not compile.
await app.register(serviceGuard, { mode: 'remote', clientId: 'api', clientSecret: 'secret' });

export class AuditedTokens extends TokensController {
  override async create(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    request.log.info({ keys: CONTROLLER_KEYS.length }, 'token request');
    return super.create(request, reply);
  }
}
