import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { refusedAddressReason } from '../../clients/metadata-documents/client-metadata-document-address.js';
import { checkedLookup } from '../../clients/metadata-documents/client-metadata-document-fetch.js';

// OpenID Connect Back-Channel Logout 1.0 section 2.5: the logout token POSTed to the client's back-channel logout URI
// as application/x-www-form-urlencoded `logout_token`. node:http(s) directly, so the connection is ours: the host's
// addresses are checked by the metadata-document fetcher's rules where the client may not reach private networks
// (backchannel-logout-uri.ts), one deadline bounds connect, request and answer, redirects are not followed (the token
// goes to the registered URI only), and the answer's body is never read beyond a few bytes.

export interface LogoutPostOptions {
  allowPrivateAddresses: boolean;
  timeoutMs: number;
}

/** delivered: section 2.8's success; retry: worth another attempt later; refused: it would fail again the same way. */
export type LogoutPostOutcome =
  { kind: 'delivered'; status: number } | { kind: 'retry'; reason: string } | { kind: 'refused'; reason: string };

class AddressRefused extends Error {}

const MAX_ANSWER_BYTES = 16384;

export function postLogoutToken(
  uri: string,
  logoutToken: string,
  { allowPrivateAddresses, timeoutMs }: LogoutPostOptions,
): Promise<LogoutPostOutcome> {
  const url = new URL(uri);
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literalReason = isIP(literal) !== 0 && !allowPrivateAddresses ? refusedAddressReason(literal) : null;
  if (literalReason !== null) return Promise.resolve({ kind: 'refused', reason: `the address ${literal} is ${literalReason}` });
  const body = new URLSearchParams({ logout_token: logoutToken }).toString();

  return new Promise<LogoutPostOutcome>((resolve) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'oauth-service back-channel logout',
      },
      agent: false,
      lookup: checkedLookup(allowPrivateAddresses, (reason) => new AddressRefused(reason)),
      maxHeaderSize: 16384,
    });
    let settled = false;
    const end = (outcome: LogoutPostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request.destroy();
      resolve(outcome);
    };
    const deadline = setTimeout(() => end({ kind: 'retry', reason: `no answer within ${timeoutMs} ms` }), timeoutMs);
    request.on('error', (error) =>
      end(error instanceof AddressRefused ? { kind: 'refused', reason: error.message } : { kind: 'retry', reason: failureOf(error) }),
    );
    request.on('response', (response) => {
      let size = 0;
      // The answer only has to arrive: section 2.8 gives it no body this server needs.
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) end(outcomeOf(response.statusCode ?? 0));
      });
      response.on('end', () => end(outcomeOf(response.statusCode ?? 0)));
      response.on('error', () => end(outcomeOf(response.statusCode ?? 0)));
    });
    request.end(body);
  });
}

// Section 2.8: 200 OK is success, and the OP should take a 204 (frameworks answer an empty body so). 400 is the client
// refusing this token, which no later attempt changes; so is any other 4xx but 408 and 429, and a redirect (not
// followed). 5xx, 408 and 429 are worth another attempt.
function outcomeOf(status: number): LogoutPostOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status === 408 || status === 429 || status >= 500) return { kind: 'retry', reason: `the client answered status ${status}` };
  if (status >= 300 && status < 400)
    return { kind: 'refused', reason: `the client answered a redirect (${status}), which is not followed` };
  return { kind: 'refused', reason: `the client answered status ${status}` };
}

function failureOf(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ? `the connection failed (${code})` : `the connection failed (${error.message})`;
}
