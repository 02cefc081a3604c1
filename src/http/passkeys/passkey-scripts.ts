import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PUBLIC_DIR } from '../plugins/views.js';

// The passkey pages' scripts, served from this origin (the pages' CSP allows script-src 'self' only, no inline
// script, no CDN): @simplewebauthn/browser's bundle, its version in its path so a cached copy is never another
// version's, and ours (public/passkeys.js). Each carries Subresource Integrity computed from the bytes served.

export interface PageScript {
  /** The path the page loads it from. */
  src: string;
  /** W3C Subresource Integrity: sha384 of the file's bytes. */
  integrity: string;
  body: Buffer;
}

function browserBundle(): { version: string; body: Buffer } {
  // The package's entry is script/index.js; its self-contained UMD bundle (global SimpleWebAuthnBrowser) is beside it.
  const root = join(dirname(createRequire(import.meta.url).resolve('@simplewebauthn/browser')), '..');
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return { version, body: readFileSync(join(root, 'dist/bundle/index.umd.min.js')) };
}

const script = (src: string, body: Buffer): PageScript => ({
  src,
  integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`,
  body,
});

let scripts: readonly PageScript[] | undefined;

/** Both scripts, in the order the page loads them; read and hashed once, at the first call (the server's start). */
export function passkeyScripts(): readonly PageScript[] {
  if (scripts === undefined) {
    const bundle = browserBundle();
    scripts = [
      script(`/assets/simplewebauthn-browser-${bundle.version}.umd.min.js`, bundle.body),
      script('/assets/passkeys.js', readFileSync(join(PUBLIC_DIR, 'passkeys.js'))),
    ];
  }
  return scripts;
}

/** What a page's template needs: the tags' src and integrity. */
export const passkeyScriptTags = (): { src: string; integrity: string }[] =>
  passkeyScripts().map(({ src, integrity }) => ({ src, integrity }));
