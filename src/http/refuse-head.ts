import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * HEAD of a GET that changes something (issues a code, signs out, rotates a registration access token, completes a
 * sign-in, shows a secret once): Fastify would answer HEAD by running the GET handler and dropping its body, so the
 * change would happen and its answer be lost. Such a GET is registered with `exposeHeadRoute: false`, and HEAD is 405
 * naming the methods the resource takes (RFC 9110 sections 9.3.2 and 15.5.6).
 */
export function refuseHead(
  app: FastifyInstance,
  url: string,
  allow: readonly string[],
  // A resource its GET would answer 404 (an unknown id) is 404 to HEAD too: no methods to name.
  exists: (request: FastifyRequest) => boolean = () => true,
): void {
  app.head(url, async (request, reply) =>
    exists(request) ? reply.code(405).header('allow', allow.join(', ')).send() : reply.code(404).send(),
  );
}
