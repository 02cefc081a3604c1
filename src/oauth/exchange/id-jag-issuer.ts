import { randomBytes } from 'node:crypto';
import type { IdJagAudienceConfig } from '../../config/token-exchange-schema.js';
import { ID_JAG_TYPE } from '../assertions/jwt-bearer-grant-type.js';
import type { OAuthDeps } from '../deps.js';
import { InvalidRequest, InvalidScope, InvalidTarget, UnauthorizedClient } from '../errors.js';
import { authorizationIssuer } from '../issuer.js';
import { isWellFormedScopeParam } from '../scopes.js';
import type { ApplicationRecord, UserRecord } from '../store.js';

// draft-ietf-oauth-identity-assertion-authz-grant, "Token Exchange": this server as the enterprise identity provider.
// A client exchanges the ID token of its signed-in user for an Identity Assertion JWT Authorization Grant aimed at a
// downstream authorization server the operator listed (config tokenExchange.idJagAudiences), which redeems it with
// the JWT bearer grant (another instance of this product does, with this server in its trustedIssuers, idJag true).

/** The listed downstream server that `audience` names and that lets `client` ask; else the RFC 8693 error. */
export function idJagAudience(
  deps: Pick<OAuthDeps, 'config'>,
  audience: string | undefined,
  client: ApplicationRecord,
): IdJagAudienceConfig {
  if (audience === undefined) throw new InvalidRequest('An ID-JAG needs an audience: the downstream authorization server.');
  const entry = deps.config.tokenExchange.idJagAudiences.find((candidate) => candidate.audience === audience);
  // RFC 8693 section 2.2.2: an audience the server will not issue for is invalid_target.
  if (!entry) throw new InvalidTarget(`The audience ${audience} is not an authorization server this server issues ID-JAGs for.`);
  if (!entry.clients.includes(client.uid)) throw new UnauthorizedClient('This client may not ask for ID-JAGs for that audience.');
  return entry;
}

/** The ID-JAG's resource: the configured one, which a resource parameter may only repeat; else the one asked for. */
export function idJagResource(entry: IdJagAudienceConfig, requested: readonly string[]): string | null {
  if (requested.length > 1) throw new InvalidTarget('An ID-JAG names at most one resource.');
  const [asked] = requested;
  if (entry.resource !== null && asked !== undefined && asked !== entry.resource)
    throw new InvalidTarget(`The resource ${asked} is not the one configured for that audience.`);
  return entry.resource ?? asked ?? null;
}

export interface SignedIdJag {
  value: string;
  expiresIn: number;
  scope: string | null;
}

/**
 * The draft's ID-JAG claims: iss this server, sub the user's (public) subject, aud the downstream server, client_id
 * the client's id there, jti, a short exp; resource and scope when asked for (the downstream server narrows them to
 * its own); email when verified, so a downstream server matching by email finds its user.
 */
export async function signIdJag(
  deps: OAuthDeps,
  entry: IdJagAudienceConfig,
  user: UserRecord,
  request: { resource: string | null; scope: string | undefined },
): Promise<SignedIdJag> {
  if (request.scope !== undefined && !isWellFormedScopeParam(request.scope)) throw new InvalidScope();
  const iat = Math.floor(deps.now().getTime() / 1000);
  const claims = {
    iss: authorizationIssuer(deps.config.baseUrl),
    sub: user.subject,
    aud: entry.audience,
    client_id: entry.clientId,
    jti: randomBytes(16).toString('base64url'),
    iat,
    exp: iat + entry.lifetimeSeconds,
    ...(request.resource !== null && { resource: request.resource }),
    ...(request.scope !== undefined && { scope: request.scope }),
    ...(user.email !== null && user.emailVerified && { email: user.email, email_verified: true }),
  };
  const value = await deps.signer.sign(claims, { typ: ID_JAG_TYPE });
  return { value, expiresIn: entry.lifetimeSeconds, scope: request.scope ?? null };
}
