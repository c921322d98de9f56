import { createHash } from 'node:crypto';
import type { RealmSettings } from '../records/realm-settings.js';
import { SUPPORTED_LOCALES } from '../records/locales.js';
import { pageScriptUrl } from './assets/scripts.js';
import { type ClientBrand, DEFAULT_PRIMARY_COLOUR, type RealmBrand, realmBrand } from './branding.js';
import { focusColourOn } from './contrast.js';
import { SafeHtml, html } from './html.js';
import type { Messages } from './i18n/index.js';
import { languagePicker } from './language-picker.js';

/** The page backgrounds of the light and the dark scheme, which the focus ring must stand out from. */
const LIGHT_BACKGROUND = '#ffffff';
const DARK_BACKGROUND = '#121212';

/**
 * The one stylesheet, inline and allowed by its hash: the pages load nothing else but a realm's
 * or client's logo and this server's own scripts. Every colour is named here, for the light and the dark scheme, so that each
 * text reaches WCAG AA contrast (4.5:1) on what is behind it; test/browser/layout-contrast.test.ts
 * measures it. Long words (client names, URLs, codes) wrap, so that nothing is wider than a
 * 320 px window.
 */
const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5;
  --bg: ${LIGHT_BACKGROUND}; --fg: #1a1a1a; --muted: #595959; --line: #767676; --field: #ffffff; --button: #f0f0f0; --link: #1d4ed8;
  --error-bg: #fde8e8; --error-fg: #8a1c1c; --notice-bg: #e6f0e6; --notice-fg: #1c4d1c;
  --primary: ${DEFAULT_PRIMARY_COLOUR}; --on-primary: #ffffff; --focus: ${focusColourOn(LIGHT_BACKGROUND, DEFAULT_PRIMARY_COLOUR)}; }
@media (prefers-color-scheme: dark) { :root {
  --bg: ${DARK_BACKGROUND}; --fg: #ececec; --muted: #b3b3b3; --line: #8c8c8c; --field: #1e1e1e; --button: #2b2b2b; --link: #9dbbff;
  --error-bg: #4a1515; --error-fg: #ffd7d7; --notice-bg: #143a1f; --notice-fg: #cdf0d5;
  --focus: ${focusColourOn(DARK_BACKGROUND, DEFAULT_PRIMARY_COLOUR)}; } }
body { margin: 0; display: grid; place-items: center; min-height: 100vh; background: var(--bg); color: var(--fg); overflow-wrap: anywhere; }
main { box-sizing: border-box; width: min(26rem, 100% - 2rem); margin: 1rem 0; padding: 2rem 1.5rem; border: 1px solid var(--line); border-radius: .75rem; }
h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
a { color: var(--link); }
.brand { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem .75rem; margin: 0 0 1rem; }
.brand img { display: block; max-height: 2.5rem; max-width: 100%; }
.realm { margin: 0; color: var(--muted); }
.client { display: flex; align-items: center; gap: .5rem; margin: 0 0 1.5rem; color: var(--muted); }
.client img { display: block; max-height: 2rem; max-width: 4rem; }
label { display: block; margin: 1rem 0 .25rem; font-weight: 600; }
input { box-sizing: border-box; width: 100%; padding: .6rem; font: inherit; color: var(--fg); background: var(--field); border: 1px solid var(--line); border-radius: .4rem; }
input::placeholder { color: var(--muted); opacity: 1; }
button { max-width: 100%; font: inherit; padding: .6rem 1.2rem; margin: 1.5rem .5rem 0 0; border-radius: .4rem; color: var(--fg); background: var(--button); border: 1px solid var(--line); cursor: pointer; }
button.primary { background: var(--primary); border-color: var(--primary); color: var(--on-primary); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.error { padding: .75rem; border-radius: .4rem; background: var(--error-bg); color: var(--error-fg); }
.notice { padding: .75rem; border-radius: .4rem; background: var(--notice-bg); color: var(--notice-fg); }
ul.scopes { padding-left: 1.2rem; }
ul.scopes li { margin: .5rem 0; }
dl.details { margin: .25rem 0 0; }
dl.details dt { color: var(--muted); }
dl.details dd { margin: 0 0 .25rem; }
ul.links { padding-left: 1.2rem; }
ul.links li { margin: .75rem 0; }
.alternative { border-top: 1px solid var(--line); margin-top: 1.5rem; }
.user-code { font-family: ui-monospace, monospace; letter-spacing: .15em; text-transform: uppercase; }
section.account h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
section.request { border-top: 1px solid var(--line); padding-top: 1rem; margin-top: 1rem; }
.binding-lead { margin: 0 0 .25rem; }
.binding-message { font-size: 1.6rem; font-weight: 700; margin: 0 0 1rem; padding: .5rem .75rem; border: 2px solid var(--line); border-radius: .4rem; }
.scope-id { color: var(--muted); font-family: ui-monospace, monospace; font-size: .875rem; }
.reference, .hint { color: var(--muted); }
.hint { margin: .25rem 0 0; }
button.show-password { margin: .4rem 0 0; padding: .3rem .8rem; }
main.wide { width: min(64rem, 100% - 2rem); }
@media (min-width: 60rem) { .columns { columns: 2; column-gap: 3rem; } .columns > section { break-inside: avoid; } }
.columns > section.account > h2 { margin-top: 0; padding-top: 1.5rem; }
svg { max-width: 100%; height: auto; }
nav.languages ul { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; margin: 1.5rem 0 0; padding: 1rem 0 0; border-top: 1px solid var(--line); }
nav.languages a { display: inline-block; padding: .25rem 0; }
nav.languages a[aria-current] { color: var(--fg); font-weight: 700; text-decoration: none; }
`;
const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64');
const STYLE_HASH = sha256(STYLE);
const STYLE_TEXT = new SafeHtml(STYLE);

/** A page's own script and the hash by which its CSP allows it. */
export interface InlineScript {
  readonly text: SafeHtml;
  readonly hash: string;
}

/** A page's own script: a constant of its module, hashed once when the module loads. */
export const inlineScript = (text: string): InlineScript => ({ text: new SafeHtml(text), hash: sha256(text) });

/**
 * The realm's colour of the main buttons, and the focus ring that stands out from it and from
 * the page in each scheme: a stylesheet of its own (allowed by its hash) when it is not the default.
 */
function brandStyle(brand: RealmBrand): string | undefined {
  const primary = brand.primary.background;
  if (primary === DEFAULT_PRIMARY_COLOUR) return undefined;
  // Every value is #rrggbb (the setting's validation, textColourOn, focusColourOn): nothing else reaches the stylesheet.
  return `:root { --primary: ${primary}; --on-primary: ${brand.primary.text}; --focus: ${focusColourOn(LIGHT_BACKGROUND, primary)}; }
@media (prefers-color-scheme: dark) { :root { --focus: ${focusColourOn(DARK_BACKGROUND, primary)}; } }`;
}

/** A page with a password field or a local date loads the script that adds the show-password button and writes dates in local time. */
const needsPageScript = (body: SafeHtml): boolean => body.value.includes('type="password"') || body.value.includes('data-local');

/**
 * CSP for the pages: nothing may load or run, the page may not be framed. Chromium applies
 * form-action to the redirect that follows a form's submission, so the origin a form may
 * send the person back to (the client's redirect URI) is listed beside 'self'. A realm's or
 * client's logo is allowed by its origin alone.
 */
function contentSecurityPolicy(input: {
  formTargets: readonly string[];
  scripts: boolean;
  inlineScripts: readonly string[];
  styles: readonly string[];
  images: readonly string[];
  frames: readonly string[];
}): string {
  const targets = [...new Set(input.formTargets.map((uri) => safeOrigin(uri)).filter((origin) => origin !== undefined))];
  const images = [...new Set(input.images.map((uri) => httpsOrigin(uri)).filter((origin) => origin !== undefined))];
  return [
    "default-src 'none'",
    `style-src ${input.styles.map((style) => `'sha256-${style}'`).join(' ')}`,
    ...(images.length > 0 ? [`img-src ${images.join(' ')}`] : []),
    // The end-session page frames the clients' front-channel logout pages (src/pages/front-channel-logout.ts).
    ...(input.frames.length > 0 ? [`frame-src ${[...new Set(input.frames.map((uri) => safeOrigin(uri)))].join(' ')}`] : []),
    // A page with scripts (passkeys) loads them from this server, and talks to it alone.
    ...(input.scripts ? ["script-src 'self'", "connect-src 'self'"] : []),
    // A page's own inline script (the form_post page's submit) runs by its hash alone.
    ...(input.inlineScripts.length > 0 ? [`script-src ${input.inlineScripts.map((script) => `'sha256-${script}'`).join(' ')}`] : []),
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

/** The origin of an https image as a CSP source (serialized by URL: it holds no space, quote or semicolon). */
function httpsOrigin(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

export interface PageOptions {
  /** The language the page is written in: its `<html lang>`. */
  t: Messages;
  title: string;
  status?: number;
  /** Where a form on the page may lead the browser, beside this server. */
  formTargets?: readonly string[];
  /** Scripts of this server the page loads (passkeys need WebAuthn); other pages run none. */
  scripts?: readonly string[];
  /** A script of the page's own, inline at the end of its body and allowed by its hash; not with `scripts`. */
  inlineScript?: InlineScript;
  /** The application a sign-in or consent page is for: named below the title, with its logo. */
  client?: ClientBrand | undefined;
  /** What the page says beside the client's logo instead of "to continue to …" (the consent page's "… asks to:"). */
  clientSentence?: SafeHtml;
  /** A page of many sections (the account page): wider, its `.columns` two columns on a desktop. */
  wide?: boolean;
  /** http(s) pages the page frames (front-channel logout), allowed by their origins. */
  frames?: readonly string[];
}

/** A page as its template renders it: what `renderPage` lays out. */
export interface Page {
  options: PageOptions;
  body: SafeHtml;
}

/** A realm a request failed before knowing (an unknown realm): no name, the default look. */
const NO_REALM = { name: '', settings: { display_name: null, logo_uri: null, primary_color: null } } as const;

const logo = (uri: string | undefined) => (uri === undefined ? '' : html`<img src="${uri}" alt="">`);

/** A page ready to send: its status, the security headers every page carries, and its HTML. */
export interface RenderedPage {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly html: string;
}

/**
 * Renders a page: HTML in the realm's branding (its display name, logo and colour; the default
 * look for a request that failed before its realm was known) and in the language of `t`, with
 * the headers every page carries.
 */
export function renderPage(
  realmOrNone: { name: string; settings: RealmSettings } | undefined,
  options: PageOptions,
  body: SafeHtml,
  /** What the page's address keeps in the language picker's links (src/pages/language-picker.ts). */
  address = new URLSearchParams(),
  /** The realm's issuer, below which the pages' scripts are served; none for a request without a realm. */
  issuer?: string,
): RenderedPage {
  const realm = realmOrNone ?? NO_REALM;
  const brand = realmBrand(realm);
  const extraStyle = brandStyle(brand);
  const { client, t } = options;
  const pageScript = issuer !== undefined && options.inlineScript === undefined && needsPageScript(body) ? [pageScriptUrl(issuer)] : [];
  const scripts = [...(options.scripts ?? []), ...pageScript];
  const page = html`<!doctype html>
<html lang="${t.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${options.title}${brand.name ? ` · ${brand.name}` : ''}</title>
<style>${STYLE_TEXT}</style>
${extraStyle === undefined ? '' : html`<style>${new SafeHtml(extraStyle)}</style>\n`}${scripts.map((src) => html`<script src="${src}" defer></script>\n`)}</head>
<body>
<main${options.wide ? html` class="wide"` : ''}${pageScript.length > 0 ? html` data-show-password="${t.page.showPassword}" data-hide-password="${t.page.hidePassword}"` : ''}>
<header class="brand">${logo(brand.logoUri)}<p class="realm">${brand.name}</p></header>
<h1>${options.title}</h1>
${client ? html`<p class="client">${logo(client.logoUri)}<span>${options.clientSentence ?? t.page.forClient(html`<strong>${client.name}</strong>`)}</span></p>\n` : ''}${body}
${languagePicker(realmOrNone?.settings.locales ?? SUPPORTED_LOCALES, address, t)}
</main>
${options.inlineScript === undefined ? '' : html`<script>${options.inlineScript.text}</script>\n`}</body>
</html>
`;
  const csp = contentSecurityPolicy({
    formTargets: options.formTargets ?? [],
    scripts: scripts.length > 0,
    inlineScripts: options.inlineScript === undefined ? [] : [options.inlineScript.hash],
    styles: extraStyle === undefined ? [STYLE_HASH] : [STYLE_HASH, sha256(extraStyle)],
    images: [brand.logoUri, client?.logoUri].filter((uri) => uri !== undefined),
    frames: options.frames ?? [],
  });
  return {
    status: options.status ?? 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
      pragma: 'no-cache',
    },
    html: page.value,
  };
}
