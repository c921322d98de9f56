import { BROWSER_PROGRAMS, browserBundle } from '../http/browser-bundle.js';
import type { Messages } from './i18n/index.js';
import { html } from './html.js';
import { type Page, inlineScript } from './layout.js';

/**
 * Goes on to the `continue` link once every frame has loaded, or after 3 s at most; the same
 * text each time, so that the CSP allows it by its hash.
 */
const GO_ON = inlineScript(browserBundle(BROWSER_PROGRAMS.frontChannelLogout).toString('utf8'));

/** Front-Channel Logout 1.0 §3: a client's logout page with the issuer and the session added. */
export function frontChannelLogoutUrl(uri: string, issuer: string, sid: string): string {
  const url = new URL(uri);
  url.searchParams.set('iss', issuer);
  url.searchParams.set('sid', sid);
  return url.href;
}

/**
 * The page after an RP-initiated logout (CONTRACT.md §12): "signed out", one hidden iframe per
 * client of the session with a front-channel logout URI, then on to `next` (the client's
 * post-logout redirect) once they have loaded; without script, by the person's link.
 */
export function frontChannelLogoutPage(t: Messages, frames: readonly string[], next: string | undefined): Page {
  const body = html`<p>${t.signOut.done}</p>
${frames.map((src) => html`<iframe src="${src}" title="" width="0" height="0" hidden></iframe>\n`)}${next === undefined ? '' : html`<p><a id="continue" class="button primary" href="${next}">${t.actions.continue}</a></p>\n`}`;
  return { options: { t, title: t.signOut.doneTitle, frames, ...(next === undefined ? {} : { inlineScript: GO_ON }) }, body };
}
