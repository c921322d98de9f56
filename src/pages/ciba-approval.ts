import { html } from './html.js';
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
export function backchannelRequestsPage(input: {
  realm: string;
  username: string;
  requests: readonly BackchannelRequestView[];
  notice?: string | undefined;
}): Page {
  const sections = input.requests.map(
    (request) => html`<section class="request">
<p><strong>${request.clientName}</strong> asks to:</p>
<ul class="scopes">${scopeItems(request.scopes)}</ul>
${request.bindingMessage ? html`<p>Check that the application shows: <span class="binding-message">${request.bindingMessage}</span></p>` : ''}
<form method="post">
${hiddenFields(request.hidden)}
<button class="primary" type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
</section>`,
  );
  return {
    options: { title: 'Requests waiting for you', realm: input.realm },
    body: html`${input.notice ? html`${noticeBox(input.notice)}
` : ''}<p>Signed in as <strong>${input.username}</strong>.</p>
${sections.length > 0 ? sections : html`<p>No requests are waiting for you.</p>`}`,
  };
}
