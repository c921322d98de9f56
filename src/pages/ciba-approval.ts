import { html } from './html.js';
import type { Messages } from './i18n/index.js';
import type { Page } from './layout.js';
import { type ScopeView, hiddenFields, noticeBox, scopeItems } from './parts.js';

/** A CIBA request as the approval page shows it. */
export interface BackchannelRequestView {
  clientName: string;
  bindingMessage: string | undefined;
  scopes: readonly ScopeView[];
  hidden: Record<string, string>;
}

/** The person's authentication device (CIBA Core §1): one form per request waiting for them. */
export function backchannelRequestsPage(
  t: Messages,
  input: {
    username: string;
    requests: readonly BackchannelRequestView[];
    notice?: string | undefined;
  },
): Page {
  const sections = input.requests.map(
    // The binding message first and large: it is what the person compares with the application's screen (CIBA Core §7.1).
    (request) => html`<section class="request">
${request.bindingMessage ? html`<p class="binding-lead">${t.ciba.bindingLead}</p>
<p class="binding-message">${request.bindingMessage}</p>
` : ''}<p>${t.consent.asksTo(html`<strong>${request.clientName}</strong>`)}</p>
<ul class="scopes">${scopeItems(t, request.scopes)}</ul>
<form method="post">
${hiddenFields(request.hidden)}
<button class="primary" type="submit" name="decision" value="allow">${t.actions.allow}</button>
<button type="submit" name="decision" value="deny">${t.actions.deny}</button>
</form>
</section>`,
  );
  return {
    options: { t, title: t.ciba.title },
    body: html`${input.notice ? html`${noticeBox(input.notice)}
` : ''}<p>${t.ciba.signedInAs(html`<strong>${input.username}</strong>`)}</p>
${sections.length > 0 ? sections : html`<p>${t.ciba.none}</p>`}`,
  };
}
