import { type SafeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import { type AccountForm, csrfInput } from './form.js';

/** A client the person allowed, with what they allowed it and the form that revokes it. */
export interface ApplicationView {
  readonly clientId: string;
  readonly clientName: string | undefined;
  readonly scope: readonly string[];
  readonly revoke: AccountForm;
}

export function applicationsSectionBody(t: Messages, applications: readonly ApplicationView[]): SafeHtml {
  const texts = t.account.applications;
  if (applications.length === 0) return html`<p>${texts.none}</p>`;
  const items = applications.map(
    (application) => html`<li class="application">
<strong>${application.clientName ?? application.clientId}</strong>${application.clientName ? html` <span class="client-id">(${application.clientId})</span>` : ''}
<p>${texts.allowed(application.scope.length > 0 ? application.scope.join(', ') : texts.signInOnly)}</p>
<form method="post" action="${application.revoke.action}">
<input type="hidden" name="client_id" value="${application.clientId}">
${csrfInput(application.revoke.csrf)}
<button type="submit">${texts.revoke}</button>
</form>
</li>`,
  );
  return html`<ul class="applications">${items}</ul>`;
}
