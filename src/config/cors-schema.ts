// config `cors`: which browser-based applications (a single-page app's public client, OAuth 2.0 for Browser-Based
// Applications) may call the token, revocation and UserInfo endpoints from their own origin and read the answers
// (http/plugins/cors.ts). Part of config/schema.ts.

export const corsSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description:
    'Cross-origin reads (CORS) by browser-based applications. Discovery and the JWKS are readable from every origin whatever this holds; the admin, sign-in and introspection endpoints from none.',
  properties: {
    allowedOrigins: {
      type: 'array',
      items: { type: 'string' },
      uniqueItems: true,
      default: [],
      description:
        'Origins (scheme://host[:port], as a browser sends them) whose pages may call the token, revocation and UserInfo endpoints and read the answers; "*" for any origin. Empty: none.',
    },
  },
} as const;

/** What is wrong with each entry of cors.allowedOrigins: it must be "*" or an http(s) origin exactly. */
export function corsProblems(allowedOrigins: readonly string[]): string[] {
  return allowedOrigins.flatMap((entry, index) => {
    if (entry === '*' || originOf(entry) === entry) return [];
    const origin = originOf(entry);
    const hint = origin === null ? '' : ` (did you mean ${origin}?)`;
    return [
      `cors.allowedOrigins[${index}]: ${JSON.stringify(entry)} is not an origin: scheme://host[:port], no path, no trailing slash${hint}`,
    ];
  });
}

function originOf(entry: string): string | null {
  try {
    const url = new URL(entry);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : null;
  } catch {
    return null;
  }
}
