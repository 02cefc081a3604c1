/**
 * A URI a client supplied (RFC 7591 client_uri, policy_uri, tos_uri) as a link a page may show: only https, and
 * without credentials in it; anything else (javascript:, data:, http:, garbage) is null and never becomes a link.
 * The template escapes both values like any other text.
 */
export function httpsLink(uri: string | null): { href: string; host: string } | null {
  const url = uri === null ? null : parsedUrl(uri);
  if (!url || url.protocol !== 'https:' || url.username !== '' || url.password !== '') return null;
  return { href: url.href, host: url.host };
}

export function parsedUrl(uri: string): URL | null {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}
