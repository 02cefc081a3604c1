// Secrets travel in query strings (access_token, code, a database URL's password): what logs, traces and banners show
// of a URL keeps it as written but for those values. The names are compared as the query parser that acts on them reads
// them (`%61ccess_token` is access_token), so a percent-encoded name hides nothing.

// Each `name=` after a `?` or `&`, wherever it is: also one inside another parameter's value (`next=/a?code=...`).
const QUERY_NAME = /[?&]([^?&#=]*)=/g;

export interface QueryRedaction {
  /** Whether the parameter of this (decoded) name holds a secret. */
  secret(name: string): boolean;
  /** What a secret value is replaced by. */
  mask: string;
  /** Where a value ends: at the next `&` or `#` (a URL), or at the next `&` only (a `#` may be part of a password). */
  endsAt: RegExp;
}

/** The URL with the values of the secret query parameters replaced; as written otherwise. */
export function redactQuery(url: string, { secret, mask, endsAt }: QueryRedaction): string {
  if (!url.includes('?')) return url;
  let redacted = '';
  let copied = 0;
  for (const match of url.matchAll(QUERY_NAME)) {
    // Inside a value redacted already: skipped.
    if (match.index < copied || !secret(decodedName(match[1]!))) continue;
    const valueStart = match.index + match[0].length;
    const valueLength = url.slice(valueStart).search(endsAt);
    redacted += `${url.slice(copied, valueStart)}${mask}`;
    copied = valueLength === -1 ? url.length : valueStart + valueLength;
  }
  return redacted + url.slice(copied);
}

// A name as URLSearchParams and Fastify's parser read it: `+` a space and each %XX its byte; a malformed escape stays as
// written (no secret's name either way). Byte by byte, since the names compared are ASCII.
function decodedName(name: string): string {
  if (!name.includes('%') && !name.includes('+')) return name;
  return name.replace(/\+/g, ' ').replace(/%([0-9a-f]{2})/gi, (_, byte: string) => String.fromCharCode(parseInt(byte, 16)));
}
