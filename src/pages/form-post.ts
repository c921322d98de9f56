import { BROWSER_PROGRAMS, browserBundle } from '../http/browser-bundle.js';
import type { Messages } from './i18n/index.js';
import { html } from './html.js';
import { type Page, inlineScript } from './layout.js';

/** Submits the page's one form at once; the same text each time, so that the CSP allows it by its hash. */
const SUBMIT = inlineScript(browserBundle(BROWSER_PROGRAMS.formPost).toString('utf8'));

/**
 * OAuth 2.0 Form Post Response Mode §2: the response's parameters as hidden fields of a form
 * that POSTs them to the redirect URI, submitted by script, or by the person's button when
 * scripts do not run. The CSP lets the form go to the redirect URI's origin alone.
 */
export function formPostPage(t: Messages, redirectUri: string, fields: Readonly<Record<string, string>>): Page {
  const body = html`<form method="post" action="${redirectUri}">
${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">\n`)}<noscript><p>${t.formPost.noScript}</p></noscript>
<button type="submit" class="primary">${t.actions.continue}</button>
</form>`;
  return { options: { t, title: t.formPost.title, formTargets: [redirectUri], inlineScript: SUBMIT }, body };
}
