// The clients of bench:peers' issue-34 scenarios, the same on both servers: one that authenticates with
// private_key_jwt (ES256) for client_credentials, and a public one of the device authorization grant (RFC 8628);
// and issue 36's FAPI 2.0 client (private_key_jwt with the same key, PAR required, DPoP-bound tokens). Here too the
// pools each run consumes: client assertions and DPoP proofs signed ahead (a jti is good once) and device codes.
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { AutocannonRequest } from 'autocannon';
import { domainDeps } from '../src/cli/context.js';
import type { Config } from '../src/config/types.js';
import { createApplication } from '../src/oauth/clients/applications.js';
import type { Database } from '../src/storage/database.js';

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const FORM = 'application/x-www-form-urlencoded';
const form = (params: Record<string, string>) => new URLSearchParams(params).toString();

/**
 * What makes the service's par_code client a FAPI 2.0 client (issue 36): the fapi2 profile, whose rules (PAR, PKCE
 * S256, DPoP, private_key_jwt with aud the issuer, 60 s codes) the service then checks on every request.
 */
export const OUR_FAPI_CLIENT_FIELDS = {
  profile: 'fapi2',
  tokenEndpointAuthMethod: 'private_key_jwt',
  requirePushedAuthorizationRequests: true,
  dpopBoundAccessTokens: true,
} as const;

/** Where the FAPI client's authorization requests come back to (registered on both servers). */
export const FAPI_REDIRECT_URI = 'https://client.example/callback';

export interface PeerClients {
  /** The private_key_jwt client's id (the same on both servers). */
  jwtClientId: string;
  /** The FAPI 2.0 client's id (the same on both servers); its key is privateKey too. */
  fapiClientId: string;
  privateKey: CryptoKey;
  /** Its public key set, as both servers register it. */
  publicJwks: { keys: JWK[] };
  deviceClientId: string;
}

/** Registers the two clients in the service's database through its domain; node-oidc-provider gets the same ids and key. */
export async function seedPeerClients(database: Database, config: Readonly<Config>): Promise<PeerClients> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const publicJwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'bench-key', alg: 'ES256', use: 'sig' }] };
  const deps = domainDeps(database, config);
  const common = { redirectUri: FAPI_REDIRECT_URI, scopes: '' };
  const jwtClient = await createApplication(deps, {
    ...common,
    name: 'bench private_key_jwt client',
    confidential: true,
    tokenEndpointAuthMethod: 'private_key_jwt',
    jwks: JSON.stringify(publicJwks),
  });
  const deviceClient = await createApplication(deps, {
    ...common,
    name: 'bench device client',
    confidential: false,
    grantTypes: DEVICE_GRANT,
  });
  const fapiClient = await createApplication(deps, {
    ...common,
    ...OUR_FAPI_CLIENT_FIELDS,
    name: 'bench FAPI 2.0 client',
    confidential: true,
    grantTypes: 'authorization_code',
    jwks: JSON.stringify(publicJwks),
  });
  return {
    jwtClientId: jwtClient.application.uid,
    fapiClientId: fapiClient.application.uid,
    privateKey,
    publicJwks,
    deviceClientId: deviceClient.application.uid,
  };
}

/**
 * JWTs signed before a run, each taken once (RFC 7523 and RFC 9449: both servers refuse a jti seen before). A run
 * that takes more than were signed gets an empty string (`missing` counts them: the run is then invalid, not slower).
 */
export class PresignedPool {
  private jwts: string[] = [];
  missing = 0;

  constructor(private readonly sign: () => Promise<string>) {}

  /** Signs until `count` are ready. */
  async fill(count: number): Promise<void> {
    while (this.jwts.length < count) this.jwts.push(await this.sign());
  }

  /** Drops what a run left, so the next one starts from fresh signatures. */
  clear(): void {
    this.jwts = [];
  }

  take(): string {
    const jwt = this.jwts.pop();
    if (jwt === undefined) this.missing += 1;
    return jwt ?? '';
  }
}

/** The form fields of private_key_jwt client authentication (RFC 7523 section 2.2). */
export const assertionFields = (assertion: string) => ({ client_assertion_type: ASSERTION_TYPE, client_assertion: assertion });

/**
 * Client assertions of `clientId` for `audience` (exp five minutes ahead: the service's bound; the run uses them
 * within seconds), and the client_credentials token request each authenticates.
 */
export class AssertionPool extends PresignedPool {
  constructor(clients: Pick<PeerClients, 'privateKey'>, audience: string, clientId: string) {
    super(() => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: 'bench-key' })
        .setIssuer(clientId)
        .setSubject(clientId)
        .setAudience(audience)
        .setJti(randomUUID())
        .setIssuedAt(now)
        .setExpirationTime(now + 290)
        .sign(clients.privateKey);
    });
  }

  /** The token request of client_credentials authenticated by the next assertion. */
  request(path: string): AutocannonRequest {
    return formPostEach(path, () => form({ grant_type: 'client_credentials', ...assertionFields(this.take()) }));
  }
}

/** A form POST whose body `body` makes anew for every request autocannon sends (and once for a probe). */
export const formPostEach = (path: string, body: () => string): AutocannonRequest => ({
  method: 'POST',
  path,
  headers: { 'content-type': FORM },
  body: body(),
  setupRequest: (request) => ({ ...request, body: body() }),
});

/**
 * `count` device authorizations of the device client (RFC 8628 section 3.1), `parallel` at a time; returns the
 * device codes. Nobody enters their user codes: every poll is pending.
 */
export async function deviceCodes(baseUrl: string, path: string, clientId: string, count: number, parallel = 8): Promise<string[]> {
  const codes: string[] = [];
  const one = async () => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: form({ client_id: clientId }),
    });
    const body = (await response.json()) as { device_code?: string };
    if (response.status !== 200 || typeof body.device_code !== 'string')
      throw new Error(`${baseUrl}${path} answered HTTP ${response.status} ${JSON.stringify(body)}`);
    codes.push(body.device_code);
  };
  const worker = async () => {
    while (codes.length < count) await one();
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return codes.slice(0, count);
}

/**
 * A device's poll of the token endpoint (RFC 8628 section 3.4), the codes taken in turn across all connections, so
 * that each code is polled once per cycle through them; `answers` counts the `error` of each answer.
 */
export function pollRequest(path: string, clientId: string, codes: string[], answers: Record<string, number>): AutocannonRequest {
  let next = 0;
  const body = () => form({ grant_type: DEVICE_GRANT, device_code: codes[next++ % codes.length]!, client_id: clientId });
  return {
    ...formPostEach(path, body),
    onResponse: (_status, text) => {
      let error = 'unreadable';
      try {
        error = String((JSON.parse(text) as { error?: unknown }).error ?? 'none');
      } catch {
        // counted as unreadable
      }
      answers[error] = (answers[error] ?? 0) + 1;
    },
  };
}
