import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BROWSER_PROGRAMS, browserBundle } from '../../http/browser-bundle.js';

/** A script of this server's pages, served below `{issuer}/assets/`. */
export interface StaticScript {
  /** The file name below `{issuer}/assets/`. */
  readonly name: string;
  readonly body: Buffer;
  /** A digest of the body: it is in the URL the pages use, so that a cached copy is never stale. */
  readonly version: string;
}

function script(name: string, body: Buffer): StaticScript {
  return { name, body, version: createHash('sha256').update(body).digest('base64url').slice(0, 16) };
}

/** @simplewebauthn/browser's UMD bundle (global `SimpleWebAuthnBrowser`); the package exports no path to it, so it is found beside its entry point. */
function webauthnBundle(): Buffer {
  const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  return readFileSync(join(dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js'));
}

/** Read once, when the server starts. */
export const WEBAUTHN_SCRIPT = script('webauthn.js', webauthnBundle());
export const PASSKEY_PAGE_SCRIPT = script('passkey.js', browserBundle(BROWSER_PROGRAMS.passkeyForms));
/** The show-password button and local times (src/pages/assets/browser/page.ts). */
export const PAGE_SCRIPT = script('page.js', browserBundle(BROWSER_PROGRAMS.pageEnhancements));

/** The scripts a page with a passkey form loads, in order: the library, then the page's script. */
export function passkeyScripts(issuer: string): string[] {
  return [WEBAUTHN_SCRIPT, PASSKEY_PAGE_SCRIPT].map((asset) => `${issuer}/assets/${asset.name}?v=${asset.version}`);
}

/** The URL of the script of pages with a password field or a date (src/pages/layout.ts adds it). */
export const pageScriptUrl = (issuer: string): string => `${issuer}/assets/${PAGE_SCRIPT.name}?v=${PAGE_SCRIPT.version}`;
