import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/ports.js';

// The upstream identity provider of the issue-37 tests: node-oidc-provider in its own process
// (test/fixtures/upstream-oidc-provider.mjs) on a free loopback port, with its own users and clients, and knobs to make
// it misbehave at its HTTP edge.

export interface UpstreamClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  post_logout_redirect_uris?: string[];
  backchannel_logout_uri?: string;
  backchannel_logout_session_required?: boolean;
}

export interface UpstreamProvider {
  issuer: string;
  /** Sets the misbehaviour knobs (see the fixture): delayMs, otherJwks. */
  control(knobs: { delayMs?: number; otherJwks?: boolean }): Promise<void>;
  /** These claims signed with the upstream's key as a logout token (the fixture's POST /__sign). */
  signLogoutToken(claims: Record<string, unknown>): Promise<string>;
  /** What the process wrote (its errors), for a failing test's message. */
  output(): string;
  /** Stops the process (an upstream that is down). */
  stop(): Promise<void>;
}

const SCRIPT = join(import.meta.dirname, '../fixtures/upstream-oidc-provider.mjs');

export async function startUpstreamProvider(options: {
  clients: UpstreamClient[];
  accounts: Record<string, Record<string, unknown>>;
}): Promise<UpstreamProvider> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [SCRIPT], {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      CLIENTS: JSON.stringify(options.clients),
      ACCOUNTS: JSON.stringify(options.accounts),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready')) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`upstream provider exited with ${code}:\n${output}`)));
  });
  const issuer = `http://127.0.0.1:${port}`;
  return {
    issuer,
    output: () => output,
    async control(knobs) {
      const response = await fetch(`${issuer}/__control`, { method: 'POST', body: JSON.stringify(knobs) });
      if (response.status !== 204) throw new Error(`control answered ${response.status}`);
    },
    async signLogoutToken(claims) {
      const response = await fetch(`${issuer}/__sign`, { method: 'POST', body: JSON.stringify(claims) });
      if (response.status !== 200) throw new Error(`__sign answered ${response.status}`);
      return response.text();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The client the product is at the upstream in these tests (its secret: each provider's IDP_<ID>_CLIENT_SECRET). */
export const PRODUCT_AT_UPSTREAM = { client_id: 'oauth-service', client_secret: 'upstream-secret' } as const;

/**
 * An upstream whose one client is the product about to listen on `port` (free, chosen here): its redirect URIs are the
 * product's callbacks for these provider ids; `client` adds to it (logout URIs).
 */
export async function upstreamForProduct(
  providerIds: string[],
  accounts: Record<string, Record<string, unknown>>,
  client: (base: string) => Partial<UpstreamClient> = () => ({}),
): Promise<{ upstream: UpstreamProvider; port: number }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const redirectUris = providerIds.map((id) => `${base}/login/upstream/${id}/callback`);
  const upstream = await startUpstreamProvider({
    clients: [{ ...PRODUCT_AT_UPSTREAM, redirect_uris: redirectUris, ...client(base) }],
    accounts,
  });
  return { upstream, port };
}
