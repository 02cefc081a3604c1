import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/types.js';
import { claimedClientId } from '../claimed-client-id.js';

export interface RequestSpanAttributesOptions {
  clientIdAttribute: Config['telemetry']['clientIdAttribute'];
}

// What @fastify/otel decorates requests with while traces are exported (src/telemetry/start-tracing.ts); described
// here instead of imported, so that the service loads nothing of OpenTelemetry when traces are off.
interface RequestSpan {
  setAttributes(attributes: Record<string, string>): unknown;
}
type TracedRequest = FastifyRequest & { opentelemetry(): { span: RequestSpan | null } };

/**
 * Adds the OAuth view of a request to its span (docs/operations.md "Traces"): the client, the grant type and the
 * outcome (`success`, or the OAuth error code answered). Never a token, secret, code or password. Without traces
 * (no `opentelemetry` request decorator) it adds no hook: nothing to pay per request.
 */
export const requestSpanAttributesPlugin = fp<RequestSpanAttributesOptions>(
  async (app, { clientIdAttribute }) => {
    if (!app.hasRequestDecorator('opentelemetry')) return;
    // onSend: the request span ends in @fastify/otel's own onSend, a route hook, which runs after this app hook.
    app.addHook('onSend', async (request, reply, payload) => {
      const { span } = (request as TracedRequest).opentelemetry();
      span?.setAttributes(oauthAttributes(request, reply, payload, clientIdAttribute));
      return payload;
    });
  },
  { name: 'request-span-attributes' },
);

function oauthAttributes(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  clientIdAttribute: RequestSpanAttributesOptions['clientIdAttribute'],
): Record<string, string> {
  const attributes: Record<string, string> = { 'oauth.outcome': outcomeOf(reply.statusCode, payload) };
  const grantType = request.oauthParameters?.grant_type;
  if (typeof grantType === 'string') attributes['oauth.grant_type'] = grantType;
  const clientId = clientIdAttribute === 'none' ? null : claimedClientId(request);
  if (clientId !== null && clientIdAttribute === 'plain') attributes['oauth.client_id'] = clientId;
  if (clientId !== null && clientIdAttribute === 'hashed') attributes['oauth.client_id_hash'] = hashed(clientId);
  return attributes;
}

function hashed(clientId: string): string {
  return createHash('sha256').update(clientId).digest('base64url').slice(0, 16);
}

// Error bodies are `{"error": code, ...}` (errorResponse, the one place that builds them); pages are HTML.
function outcomeOf(status: number, payload: unknown): string {
  if (status < 400) return 'success';
  if (typeof payload === 'string' && payload.startsWith('{')) {
    try {
      const { error } = JSON.parse(payload) as { error?: unknown };
      if (typeof error === 'string') return error;
    } catch {
      // Not JSON after all: the status says it.
    }
  }
  return `http_${status}`;
}
