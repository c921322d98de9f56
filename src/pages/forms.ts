import type { DescribedDetail } from '../authorization-details/described.js';
import { detailsList } from './authorization-details.js';
import type { ClientBrand } from './branding.js';
import { type SafeHtml, html } from './html.js';
import type { Messages } from './i18n/index.js';
import type { Page } from './layout.js';
import { type ScopeView, errorBox, hiddenFields as hidden, noticeBox, scopeItems } from './parts.js';

/**
 * A page of the sign-in: the current step's form, and other ways through it (a passkey
 * instead of a password), each its own form carrying the hidden inputs.
 */
export function signInPage(
  t: Messages,
  input: {
    title: string;
    /** The application the sign-in is for; none for a plain sign-in (the account page). */
    client: ClientBrand | undefined;
    hidden: Record<string, string>;
    step: { body: SafeHtml; hidden: Record<string, string> };
    alternatives: ReadonlyArray<{ body: SafeHtml; hidden: Record<string, string> }>;
    error?: string | undefined;
    /** What was done (a mail sent again). */
    notice?: string | undefined;
    status?: number | undefined;
    formTargets: readonly string[];
    scripts?: readonly string[];
  },
): Page {
  const form = (part: { body: SafeHtml; hidden: Record<string, string> }) =>
    html`<form method="post">
${hidden({ ...input.hidden, ...part.hidden })}
${part.body}
</form>`;
  return {
    options: {
      t,
      title: input.title,
      client: input.client,
      formTargets: input.formTargets,
      ...(input.status === undefined ? {} : { status: input.status }),
      ...(input.scripts === undefined ? {} : { scripts: input.scripts }),
    },
    body: html`${errorBox(input.error)}${input.notice === undefined ? '' : noticeBox(input.notice)}
${form(input.step)}
${input.alternatives.map((alternative) => html`<div class="alternative">${form(alternative)}</div>`)}`,
  };
}

export function consentPage(
  t: Messages,
  input: {
    client: ClientBrand;
    scopes: readonly ScopeView[];
    /** RFC 8707: the resources (APIs) the tokens are for, each by its name, else its identifier. */
    resources?: readonly string[];
    /** CONTRACT.md §15: the issuers (host and path) of the authorization servers for which the client may obtain ID-JAGs that speak for the person. */
    assertsTo?: readonly string[];
    /** For a device's request: the code the person should see on the device too (RFC 8628 §5.4). */
    userCode?: string;
    /** RFC 9396: the entries of `authorization_details`, in words. */
    details?: readonly DescribedDetail[];
    hidden: Record<string, string>;
    formTargets: readonly string[];
  },
): Page {
  const items = scopeItems(t, input.scopes);
  return {
    // The application is named once, beside its logo: "… asks to:", then what it asks in words.
    options: { t, title: t.consent.title, client: input.client, clientSentence: t.consent.asksTo(html`<strong>${input.client.name}</strong>`), formTargets: input.formTargets },
    body: html`${input.userCode ? html`<p>${t.consent.checkDeviceCode(html`<strong class="user-code">${input.userCode}</strong>`)}</p>
` : ''}${input.client.host ? html`<p class="described-at">${t.consent.describedAt(html`<strong>${input.client.host}</strong>`)}</p>
` : ''}${items.length > 0 ? html`<ul class="scopes">${items}</ul>` : html`<p>${t.consent.knowSignedIn}</p>`}
${input.resources?.length ? html`<p>${t.consent.forResources}</p>
<ul class="scopes resources">${input.resources.map((resource) => html`<li><strong>${resource}</strong></li>`)}</ul>
` : ''}${input.assertsTo?.length ? html`<p>${t.consent.mayAssert}</p>
<ul class="scopes id-jag-audiences">${input.assertsTo.map((host) => html`<li><strong>${host}</strong></li>`)}</ul>
` : ''}${input.details?.length ? detailsList(t, input.details) : ''}<form method="post">
${hidden(input.hidden)}
<button class="primary" type="submit" name="decision" value="allow">${t.actions.allow}</button>
<button type="submit" name="decision" value="deny">${t.actions.deny}</button>
</form>`,
  };
}

export function signOutPage(t: Messages, input: { hidden: Record<string, string>; formTargets: readonly string[] }): Page {
  return {
    options: { t, title: t.signOut.title, formTargets: input.formTargets },
    body: html`<p>${t.signOut.question}</p>
<form method="post">
${hidden(input.hidden)}
<button class="primary" type="submit" name="decision" value="allow">${t.signOut.confirm}</button>
<button type="submit" name="decision" value="deny">${t.signOut.stay}</button>
</form>`,
  };
}

export function messagePage(t: Messages, input: { title: string; message: string; status?: number }): Page {
  return {
    options: { t, title: input.title, status: input.status ?? 200 },
    body: html`<p${input.status && input.status >= 400 ? html` class="error" role="alert"` : ''}>${input.message}</p>`,
  };
}
