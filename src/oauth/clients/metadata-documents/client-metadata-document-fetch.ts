import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusedAddressReason } from './client-metadata-document-address.js';

export interface DocumentFetchOptions {
  /** Development only: loopback, private and link-local addresses may be fetched, and http URLs too. */
  allowPrivateAddresses: boolean;
  maxBytes: number;
  /** Connect, headers and body together. */
  timeoutMs: number;
  /**
   * The certificate authorities trusted for the document's https (replacing the default ones); tests pass their
   * self-signed certificate. Operators add a private CA with NODE_EXTRA_CA_CERTS instead.
   */
  ca?: string | Buffer | Array<string | Buffer>;
  /** The media types the answer may have; application/json when left out (a JWK Set may be application/jwk-set+json). */
  mediaTypes?: readonly string[];
}

/** The parts of the answer the caller needs: the JSON object (or array) and the caching headers. */
export interface FetchedDocument<Document = Record<string, unknown>> {
  document: Document;
  cacheControl: string | null;
  expires: string | null;
  date: string | null;
  age: string | null;
}

/**
 * A document that could not be fetched or used. `reason` is for the log; `shown` is the same in plain words for
 * the user's error page (escaped there), without what only the operator should see: the addresses a host
 * resolved to and the system's error codes.
 */
export class ClientMetadataDocumentRefused extends Error {
  constructor(
    readonly reason: string,
    readonly shown: string = reason,
  ) {
    super(`client metadata document refused: ${reason}`);
    this.name = 'ClientMetadataDocumentRefused';
  }
}

/** What the user is told when the document's host is, or resolves to, an address the SSRF rules refuse. */
const ADDRESS_NOT_ALLOWED = 'its host is at an address this server does not fetch from (address not allowed)';

/**
 * GET of a Client ID Metadata Document with node:http(s) directly, so the socket is ours: the host's addresses
 * are resolved in the request's own lookup and every one is checked before the connection goes to the checked one
 * (no second resolution, so no DNS rebinding window); one deadline covers connect, headers and body; the body is
 * cut off as soon as it passes maxBytes. Redirects are not followed: the document is at the client_id URL itself.
 */
export function fetchClientMetadataDocument(url: URL, options: DocumentFetchOptions): Promise<FetchedDocument> {
  return fetchJsonDocument(url, options, parseObject);
}

/**
 * The same GET, under the same rules, of a JSON array: the redirect URIs a sector_identifier_uri lists (OpenID Connect
 * Core 1.0 section 8.1).
 */
export async function fetchJsonArray(url: URL, options: DocumentFetchOptions): Promise<unknown[]> {
  return (await fetchJsonDocument(url, options, parseArray)).document;
}

function fetchJsonDocument<Document>(
  url: URL,
  options: DocumentFetchOptions,
  parse: (body: Buffer) => Document,
): Promise<FetchedDocument<Document>> {
  const { allowPrivateAddresses, maxBytes, timeoutMs, ca } = options;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowPrivateAddresses))
    return Promise.reject(new ClientMetadataDocumentRefused(`the scheme ${url.protocol} is not https`));
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(literal) !== 0 && !allowPrivateAddresses) {
    const reason = refusedAddressReason(literal);
    if (reason !== null)
      return Promise.reject(new ClientMetadataDocumentRefused(`the address ${literal} is ${reason}`, ADDRESS_NOT_ALLOWED));
  }

  return new Promise<FetchedDocument<Document>>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'oauth-service client-metadata-document fetcher' },
      agent: false,
      lookup: checkedLookup(allowPrivateAddresses),
      maxHeaderSize: 16384,
      ...(url.protocol === 'https:' && ca !== undefined && { ca }),
    });
    const fail = (error: Error) => {
      clearTimeout(deadline);
      request.destroy();
      reject(error instanceof ClientMetadataDocumentRefused ? error : fetchFailure(error));
    };
    const deadline = setTimeout(() => fail(new ClientMetadataDocumentRefused(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    request.on('error', fail);
    request.on('response', (response) => {
      const problem = responseProblem(response, maxBytes, options.mediaTypes ?? ['application/json']);
      if (problem !== null) return fail(new ClientMetadataDocumentRefused(problem));
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return fail(new ClientMetadataDocumentRefused(`the document is larger than ${maxBytes} bytes`));
        chunks.push(chunk);
      });
      response.on('error', fail);
      response.on('end', () => {
        clearTimeout(deadline);
        try {
          resolve({ document: parse(Buffer.concat(chunks)), ...cachingHeaders(response) });
        } catch (error) {
          reject(error as Error);
        }
      });
    });
    request.end();
  });
}

function responseProblem(response: IncomingMessage, maxBytes: number, mediaTypes: readonly string[]): string | null {
  const status = response.statusCode ?? 0;
  if (status >= 300 && status < 400) return `the URL answered a redirect (${status}); the document must be at the client_id URL itself`;
  if (status !== 200) return `the URL answered status ${status}`;
  const mediaType = (response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!mediaTypes.includes(mediaType)) return `the answer is not ${mediaTypes.join(' or ')}`;
  const length = Number(response.headers['content-length'] ?? 0);
  if (length > maxBytes) return `the document is larger than ${maxBytes} bytes`;
  return null;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new ClientMetadataDocumentRefused('the document is not valid JSON');
  }
}

function parseObject(body: Buffer): Record<string, unknown> {
  const value = parseJson(body);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ClientMetadataDocumentRefused('the document is not a JSON object');
  return value as Record<string, unknown>;
}

function parseArray(body: Buffer): unknown[] {
  const value = parseJson(body);
  if (!Array.isArray(value)) throw new ClientMetadataDocumentRefused('the document is not a JSON array');
  return value;
}

function cachingHeaders(response: IncomingMessage): Omit<FetchedDocument, 'document'> {
  const header = (name: string) => {
    const value = response.headers[name];
    return typeof value === 'string' ? value : null;
  };
  return { cacheControl: header('cache-control'), expires: header('expires'), date: header('date'), age: header('age') };
}

// Resolves all addresses of the host and refuses the connection if any is internal: a name with one public and
// one private address must not be usable to reach the private one on a later connection attempt. `refused` makes
// the caller's error (the back-channel logout deliveries use these rules too).
export function checkedLookup(
  allowPrivateAddresses: boolean,
  refused: (reason: string, shown: string) => Error = (reason, shown) => new ClientMetadataDocumentRefused(reason, shown),
): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses: LookupAddress[]) => {
      const notFound = `the host ${hostname} was not found`;
      if (error) return callback(refused(`the host ${hostname} does not resolve (${error.code ?? 'error'})`, notFound), []);
      if (addresses.length === 0) return callback(refused(`the host ${hostname} has no address`, notFound), []);
      if (!allowPrivateAddresses) {
        for (const { address } of addresses) {
          const reason = refusedAddressReason(address);
          if (reason !== null)
            return callback(refused(`the host ${hostname} resolves to ${address}, which is ${reason}`, ADDRESS_NOT_ALLOWED), []);
        }
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}

// The user is told what kind of failure it was; the log keeps the code.
const FAILURES_SHOWN: Record<string, string> = {
  ECONNREFUSED: 'its host refused the connection',
  ECONNRESET: 'its host closed the connection',
  ETIMEDOUT: 'its host did not answer',
  EHOSTUNREACH: 'its host cannot be reached',
  ENETUNREACH: 'its host cannot be reached',
};
const CERTIFICATE_FAILURE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ALTNAME/;

function fetchFailure(error: Error): ClientMetadataDocumentRefused {
  const code = (error as NodeJS.ErrnoException).code;
  if (!code) return new ClientMetadataDocumentRefused('the fetch failed', 'it could not be fetched');
  const shown = CERTIFICATE_FAILURE.test(code)
    ? "its host's TLS certificate is not valid or not trusted"
    : (FAILURES_SHOWN[code] ?? 'it could not be fetched');
  return new ClientMetadataDocumentRefused(`the fetch failed (${code})`, shown);
}
