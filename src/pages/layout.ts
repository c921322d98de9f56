import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { SafeHtml, html } from './html.js';

/** The one stylesheet, inline and allowed by its hash: the pages load nothing else and run no script. */
const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; display: grid; place-items: center; min-height: 100vh; background: Canvas; color: CanvasText; }
main { box-sizing: border-box; width: min(26rem, 100% - 2rem); padding: 2rem 1.5rem; border: 1px solid GrayText; border-radius: .75rem; }
h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
.realm { margin: 0 0 1.5rem; color: GrayText; }
label { display: block; margin: 1rem 0 .25rem; font-weight: 600; }
input { box-sizing: border-box; width: 100%; padding: .6rem; font: inherit; border: 1px solid GrayText; border-radius: .4rem; }
button { font: inherit; padding: .6rem 1.2rem; margin: 1.5rem .5rem 0 0; border-radius: .4rem; border: 1px solid GrayText; cursor: pointer; }
button.primary { background: #2557d6; border-color: #2557d6; color: #fff; }
:focus-visible { outline: 3px solid #f0a000; outline-offset: 2px; }
.error { padding: .75rem; border-radius: .4rem; background: #fde8e8; color: #8a1c1c; }
ul.scopes { padding-left: 1.2rem; }
ul.scopes li { margin: .5rem 0; }
.alternative { border-top: 1px solid GrayText; margin-top: 1.5rem; }
.user-code { font-family: ui-monospace, monospace; letter-spacing: .15em; text-transform: uppercase; }
.notice { padding: .75rem; border-radius: .4rem; background: #e6f0e6; color: #1c4d1c; }
section.account h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
section.request { border-top: 1px solid GrayText; padding-top: 1rem; margin-top: 1rem; }
.binding-message { font-size: 1.2rem; font-weight: 600; }
`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');
const STYLE_TEXT = new SafeHtml(STYLE);

/**
 * CSP for the pages: nothing may load or run, the page may not be framed. Chromium applies
 * form-action to the redirect that follows a form's submission, so the origin a form may
 * send the person back to (the client's redirect URI) is listed beside 'self'.
 */
function contentSecurityPolicy(formTargets: readonly string[], scripts: boolean): string {
  const targets = [...new Set(formTargets.map((uri) => safeOrigin(uri)).filter((origin) => origin !== undefined))];
  return [
    "default-src 'none'",
    `style-src 'sha256-${STYLE_HASH}'`,
    // A page with scripts (passkeys) loads them from this server, and talks to it alone.
    ...(scripts ? ["script-src 'self'", "connect-src 'self'"] : []),
    `form-action 'self' ${targets.join(' ')}`.trim(),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The origin of a redirect URI as a CSP source, or its scheme for a native app's private-use scheme. */
function safeOrigin(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url.origin;
    return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? url.protocol : undefined;
  } catch {
    return undefined;
  }
}

export interface PageOptions {
  title: string;
  realm: string;
  status?: number;
  /** Where a form on the page may lead the browser, beside this server. */
  formTargets?: readonly string[];
  /** Scripts of this server the page loads (passkeys need WebAuthn); other pages run none. */
  scripts?: readonly string[];
}

/** A page as its template renders it: what `sendPage` sends. */
export interface Page {
  options: PageOptions;
  body: SafeHtml;
}

/** Sends a page: HTML with the security headers every page carries. */
export function sendPage(reply: FastifyReply, options: PageOptions, body: SafeHtml): FastifyReply {
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${options.title} · ${options.realm}</title>
<style>${STYLE_TEXT}</style>
${(options.scripts ?? []).map((src) => html`<script src="${src}" defer></script>\n`)}</head>
<body>
<main>
<h1>${options.title}</h1>
<p class="realm">${options.realm}</p>
${body}
</main>
</body>
</html>
`;
  return reply
    .code(options.status ?? 200)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': contentSecurityPolicy(options.formTargets ?? [], (options.scripts ?? []).length > 0),
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
      pragma: 'no-cache',
    })
    .send(page.value);
}
