import { createServer, type IncomingMessage } from 'node:http';
import { jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { expect } from 'vitest';

// A relying party's back-channel logout endpoint (OpenID Connect Back-Channel Logout 1.0 section 2.5) on loopback: a
// real node:http server that records each request, answers the status it is told to (or holds the answer, a slow
// relying party), and validates a logout token as section 2.6 tells a relying party to, with jose.

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export interface LogoutRequest {
  method: string;
  contentType: string;
  /** The logout_token parameter of the form body; null when there was none. */
  logoutToken: string | null;
  body: string;
}

export interface BackchannelReceiver {
  /** http://127.0.0.1:<port>/backchannel-logout */
  url: string;
  requests: LogoutRequest[];
  /** The next request not yet taken (waiting for it up to timeoutMs). */
  next(timeoutMs?: number): Promise<LogoutRequest>;
  /** Whether no further request arrives within `ms` (for "nothing is sent" assertions). */
  nothingWithin(ms: number): Promise<boolean>;
  /** The status answered from now on (200 to begin with). */
  answer(status: number): void;
  /** Answers nothing until release(): a relying party that is slow to answer. */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

/** Listens on `port` (0: any free one) of 127.0.0.1. */
export async function backchannelReceiver(port = 0): Promise<BackchannelReceiver> {
  const requests: LogoutRequest[] = [];
  let taken = 0;
  let status = 200;
  let held: Array<() => void> | null = null;
  const waiters: Array<() => void> = [];
  const server = createServer((request, response) => {
    void readBody(request).then((body) => {
      const contentType = request.headers['content-type'] ?? '';
      const logoutToken = contentType.startsWith('application/x-www-form-urlencoded')
        ? new URLSearchParams(body).get('logout_token')
        : null;
      requests.push({ method: request.method ?? '', contentType, logoutToken, body });
      waiters.splice(0).forEach((wake) => wake());
      const answer = () => response.writeHead(status, { 'cache-control': 'no-store' }).end();
      if (held) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/backchannel-logout`;

  const arrival = (timeoutMs: number) =>
    new Promise<boolean>((resolve) => {
      if (requests.length > taken) return resolve(true);
      const timer = setTimeout(() => resolve(false), timeoutMs);
      waiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });

  const release = () => {
    const answers = held ?? [];
    held = null;
    answers.forEach((answer) => answer());
  };
  return {
    url,
    requests,
    async next(timeoutMs = 10_000) {
      while (requests.length <= taken) {
        if (!(await arrival(timeoutMs))) throw new Error(`no back-channel logout request within ${timeoutMs} ms`);
      }
      return requests[taken++]!;
    },
    async nothingWithin(ms) {
      const before = requests.length;
      await new Promise((resolve) => setTimeout(resolve, ms));
      return requests.length === before;
    },
    answer: (next) => (status = next),
    hold: () => (held = []),
    release,
    close() {
      release();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => resolve(body));
  });
}

export interface LogoutTokenExpectations {
  keys: JWTVerifyGetKey;
  issuer: string;
  clientId: string;
  /** The client's id_token_signed_response_alg (RS256 by default). */
  alg?: string;
}

/**
 * Back-Channel Logout 1.0 section 2.6, the relying party's validation: a JWS (not unsigned) by a key of the issuer, of
 * the expected algorithm, typed logout+jwt (section 2.4's explicit typing), iss and aud as expected, iat present, a
 * jti, the events claim with the back-channel logout member (a JSON object), a sub or a sid, and no nonce.
 */
export async function validLogoutToken(token: string, expected: LogoutTokenExpectations): Promise<JWTPayload> {
  const { payload, protectedHeader } = await jwtVerify(token, expected.keys, {
    issuer: expected.issuer,
    audience: expected.clientId,
    algorithms: [expected.alg ?? 'RS256'],
    typ: 'logout+jwt',
    requiredClaims: ['iat', 'exp', 'jti', 'events'],
  });
  expect(protectedHeader.typ).toBe('logout+jwt');
  expect(payload.events).toEqual({ [BACKCHANNEL_LOGOUT_EVENT]: {} });
  expect(typeof payload.sub === 'string' || typeof payload.sid === 'string').toBe(true);
  expect(payload).not.toHaveProperty('nonce');
  return payload;
}
