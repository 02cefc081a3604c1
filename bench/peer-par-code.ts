// bench:peers' par_code scenario (issue 36): what a FAPI 2.0 client's flow costs the server, the same three requests
// on both servers. One iteration, on one keep-alive connection: POST the pushed authorization request
// (private_key_jwt, a DPoP proof, PKCE S256) -> GET the authorization endpoint with client_id and the request_uri, as
// the user agent of a signed-in user who consented before (the answer: the redirect with the code) -> POST the code to
// the token endpoint (private_key_jwt, a DPoP proof of the same key) -> a DPoP-bound access token. Every signature
// the client makes (two assertions and two proofs an iteration) is made before the run, so the load generator's
// signing is not measured. Each step's answer is checked, and each step and iteration timed.
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AutocannonClient, AutocannonRequest } from 'autocannon';
import { proof, type ProofKey } from './dpop-proofs.js';
import { Latencies } from './load.js';
import { AssertionPool, assertionFields, FAPI_REDIRECT_URI, PresignedPool, type PeerClients } from './peer-clients.js';

export const PAR_CODE_STEPS = ['par', 'authorize', 'token'] as const;
export type ParCodeStep = (typeof PAR_CODE_STEPS)[number];

const FORM = 'application/x-www-form-urlencoded';
const SCOPE = 'read';
// PKCE S256 (RFC 7636): the server's work is one hash at the token endpoint whatever the verifier, so one serves all.
const VERIFIER = createHash('sha256').update('bench:peers par_code').digest('base64url');
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

/** The endpoints as a server's discovery document names them (DPoP's htu is the absolute URL). */
export interface FapiEndpoints {
  issuer: string;
  par: URL;
  authorize: URL;
  token: URL;
}

export async function discoverEndpoints(baseUrl: string, discoveryPath: string): Promise<FapiEndpoints> {
  const response = await fetch(`${baseUrl}${discoveryPath}`);
  const document = (await response.json()) as Record<string, unknown>;
  const url = (name: string) => {
    if (typeof document[name] !== 'string') throw new Error(`${baseUrl}${discoveryPath} names no ${name}`);
    return new URL(document[name]);
  };
  return {
    issuer: url('issuer').href.replace(/\/$/, ''),
    par: url('pushed_authorization_request_endpoint'),
    authorize: url('authorization_endpoint'),
    token: url('token_endpoint'),
  };
}

/** What one iteration carries from step to step (autocannon's per-connection context, emptied at each new iteration). */
interface Context {
  startedAt?: number;
  sentAt?: number;
  requestUri?: string;
  code?: string;
}

/** The timings of one run: each step's response times, and each iteration's (PAR sent to token received), in ms. */
export interface ParCodeRecording {
  steps: Record<ParCodeStep, Latencies>;
  iterations: Latencies;
  /** Answers that were not the step's expected one, by step and status. */
  problems: Record<string, number>;
}

const header = (headers: Record<string, string>, name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];

/** The step's answer checked: what the next step needs, or a problem. */
type Check = (status: number, body: string, headers: Record<string, string>, context: Context) => string | null;

const json = (body: string): Record<string, unknown> => {
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    return {};
  }
};

const CHECKS: Record<ParCodeStep, Check> = {
  par: (status, body, _headers, context) => {
    const requestUri = json(body).request_uri;
    if (status !== 201 || typeof requestUri !== 'string') return `par: HTTP ${status}`;
    context.requestUri = requestUri;
    return null;
  },
  authorize: (status, _body, headers, context) => {
    const location = header(headers, 'location') ?? '';
    const code = location.startsWith(`${FAPI_REDIRECT_URI}?`) ? new URL(location).searchParams.get('code') : null;
    if ((status !== 302 && status !== 303) || !code) return `authorize: HTTP ${status} ${location.slice(0, 60)}`;
    context.code = code;
    return null;
  },
  token: (status, body) => {
    const answer = json(body);
    const bound = typeof answer.access_token === 'string' && String(answer.token_type).toLowerCase() === 'dpop';
    return status === 200 && bound ? null : `token: HTTP ${status} ${body.slice(0, 80)}`;
  },
};

/**
 * The FAPI 2.0 client of one server: its pools of signatures and the three requests of an iteration, for
 * autocannon (load) and for a single checked iteration (probe, and the sign-ins before the run).
 */
export class ParCodeFlow {
  private readonly assertions: AssertionPool;
  private readonly parProofs: PresignedPool;
  private readonly tokenProofs: PresignedPool;
  private recording: ParCodeRecording = emptyRecording();

  constructor(
    readonly endpoints: FapiEndpoints,
    readonly clients: PeerClients,
    dpopKey: ProofKey,
  ) {
    this.assertions = new AssertionPool(clients, endpoints.issuer, clients.fapiClientId);
    this.parProofs = new PresignedPool(() => proof(dpopKey, 'POST', endpoints.par.href));
    this.tokenProofs = new PresignedPool(() => proof(dpopKey, 'POST', endpoints.token.href));
  }

  /** Signs what `iterations` iterations take. */
  async fill(iterations: number): Promise<void> {
    await this.assertions.fill(2 * iterations);
    await this.parProofs.fill(iterations);
    await this.tokenProofs.fill(iterations);
  }

  /** Signatures a run wanted and did not find (the run is then invalid), counted since the last clear(). */
  get missing(): number {
    return this.assertions.missing + this.parProofs.missing + this.tokenProofs.missing;
  }

  clear(): void {
    for (const pool of [this.assertions, this.parProofs, this.tokenProofs]) {
      pool.clear();
      pool.missing = 0;
    }
  }

  /** The step's request for this iteration; null when the previous step gave nothing to go on. */
  request(step: ParCodeStep, context: Context, cookie: string): AutocannonRequest | null {
    const [clientId, endpoints] = [this.clients.fapiClientId, this.endpoints];
    const post = (url: URL, dpop: string, fields: Record<string, string>): AutocannonRequest => ({
      method: 'POST',
      path: url.pathname,
      headers: { 'content-type': FORM, dpop },
      body: new URLSearchParams({ client_id: clientId, ...fields, ...assertionFields(this.assertions.take()) }).toString(),
    });
    if (step === 'par')
      return post(endpoints.par, this.parProofs.take(), {
        response_type: 'code',
        redirect_uri: FAPI_REDIRECT_URI,
        scope: SCOPE,
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
      });
    if (step === 'authorize') {
      if (context.requestUri === undefined) return null;
      const query = new URLSearchParams({ client_id: clientId, request_uri: context.requestUri });
      return { method: 'GET', path: `${endpoints.authorize.pathname}?${query}`, headers: { cookie } };
    }
    if (context.code === undefined) return null;
    return post(endpoints.token, this.tokenProofs.take(), {
      grant_type: 'authorization_code',
      code: context.code,
      redirect_uri: FAPI_REDIRECT_URI,
      code_verifier: VERIFIER,
    });
  }

  /** Checks a step's answer into `context`: null, or what was wrong. */
  check(step: ParCodeStep, status: number, body: string, headers: Record<string, string>, context: Context): string | null {
    return CHECKS[step](status, body, headers, context);
  }

  /**
   * The autocannon options of a run: connection i is the user agent of sessions[i % n] (its cookie header), and
   * runs iterations back to back. The timings and problems go to the recording takeRecording() hands over.
   */
  load(sessions: readonly string[]): { setupClient: (client: AutocannonClient) => void } {
    let next = 0;
    return {
      setupClient: (client) => {
        const cookie = sessions[next++ % sessions.length]!;
        client.setRequests(PAR_CODE_STEPS.map((step) => this.autocannonStep(step, cookie)));
      },
    };
  }

  private autocannonStep(step: ParCodeStep, cookie: string): AutocannonRequest {
    const stub: AutocannonRequest = { method: step === 'authorize' ? 'GET' : 'POST', path: '/' };
    return {
      ...stub,
      // autocannon's request carries the host and port: ours goes on top of it.
      setupRequest: (base, raw) => {
        const context = raw as Context;
        const request = this.request(step, context, cookie);
        if (request === null) return null;
        context.sentAt = performance.now();
        if (step === 'par') context.startedAt = context.sentAt;
        return { ...base, ...request, headers: { ...base.headers, ...request.headers } };
      },
      onResponse: (status, body, raw, headers) => {
        const context = raw as Context;
        const now = performance.now();
        this.recording.steps[step].add(now - (context.sentAt ?? now));
        const problem = this.check(step, status, body, headers, context);
        if (problem !== null) this.recording.problems[problem] = (this.recording.problems[problem] ?? 0) + 1;
        else if (step === 'token') this.recording.iterations.add(now - (context.startedAt ?? now));
      },
    };
  }

  /** The timings since the last call (or construction), and a fresh recording for the next run. */
  takeRecording(): ParCodeRecording {
    const taken = this.recording;
    this.recording = emptyRecording();
    return taken;
  }

  /** One iteration with fetch, outside any load: null when every step answered as expected, else the problem. */
  async probe(baseUrl: string, cookie: string): Promise<string | null> {
    const context: Context = {};
    await this.fill(1);
    try {
      for (const step of PAR_CODE_STEPS) {
        const problem = await this.send(baseUrl, step, context, cookie);
        if (problem !== null) return problem;
      }
      return null;
    } finally {
      this.clear();
    }
  }

  /** One step with fetch (redirects not followed); null, or what was wrong. Signatures must be in the pools. */
  async send(baseUrl: string, step: ParCodeStep, context: Context, cookie: string): Promise<string | null> {
    const request = this.request(step, context, cookie);
    if (request === null) return `${step}: nothing to send`;
    const response = await fetch(`${baseUrl}${request.path}`, {
      method: request.method!,
      redirect: 'manual',
      ...(request.headers && { headers: request.headers }),
      ...(request.body !== undefined && { body: request.body }),
    });
    const body = await response.text();
    return this.check(step, response.status, body, Object.fromEntries(response.headers), context);
  }
}

function emptyRecording(): ParCodeRecording {
  const steps = Object.fromEntries(PAR_CODE_STEPS.map((step) => [step, new Latencies()])) as Record<ParCodeStep, Latencies>;
  return { steps, iterations: new Latencies(), problems: {} };
}
