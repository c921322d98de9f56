import { AUDIT_EVENT_TYPES } from '../../audit/audit-log.js';
import { html } from '../../pages/html.js';
import { CONSOLE_VERSION } from './assets.js';

export const CONSOLE_PATH = '/admin/console';
export const assetPath = (name: string): string => `${CONSOLE_PATH}/${CONSOLE_VERSION}/${name}`;

/**
 * The console's CSP: its own scripts and stylesheet only, calls to this server only, no
 * framing, no form submitted by the browser itself (the scripts send every form), and
 * Trusted Types required with no policy, so that no HTML string can ever reach the DOM.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/**
 * The page: a shell that holds no data and loads the console's script; it asks for the
 * admin token. Built once, at start. Its words are English; the script puts them in the
 * console's language (the one its picker keeps, else the browser's: i18n.ts), with `lang`.
 * Without a script nothing can be chosen, so the one line shown then is in every language.
 */
export const CONSOLE_PAGE = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Admin console · realmgate</title>
<link rel="icon" href="${assetPath('icon.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${assetPath('console.css')}">
<script type="module" src="${assetPath('main.js')}"></script>
</head>
<body>
<header>
<h1 id="console-title">realmgate admin console</h1>
<button type="button" id="sign-out" hidden>Forget the token</button>
</header>
<div id="messages"></div>
<main id="view"><noscript>
<p lang="en">The admin console needs JavaScript.</p>
<p lang="de">Die Administrationskonsole benötigt JavaScript.</p>
<p lang="fr">La console d’administration nécessite JavaScript.</p>
</noscript></main>
<datalist id="event-types">
${AUDIT_EVENT_TYPES.map((type) => html`<option value="${type}"></option>\n`)}</datalist>
</body>
</html>
`.value;
