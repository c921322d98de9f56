import { formParams } from '../http/form-params.js';
import { html } from '../pages/html.js';
import type { Store } from '../store/index.js';
import { InvalidFormError } from '../endpoints/page-routes.js';
import type { AccountSection } from './section.js';

const REVOKE_PATH = '/account/applications/revoke';

/** A revocation form's CSRF token names the client, so that it revokes nothing else. */
const revokeSubject = (clientId: string): string => `applications revoke ${clientId}`;

/**
 * "Applications": the clients the person allowed, with the scopes allowed, each with a form
 * that revokes the consent and every token the client holds for the person
 * (`ConsentStore.revoke`), so that the next authorization asks again; a `consent.revoked`
 * audit event.
 */
export function applicationsSection(store: Store): AccountSection {
  return {
    title: 'Applications',
    async render(holder) {
      const consents = await store.consents.listForUser(holder.realm.name, holder.userId);
      if (consents.length === 0) return { body: html`<p>You have not allowed any application to use your account.</p>` };
      const action = `${holder.realm.issuer}${REVOKE_PATH}`;
      const items = consents.map(
        (consent) => html`<li class="application">
<strong>${consent.clientName ?? consent.clientId}</strong>${consent.clientName ? html` <span class="client-id">(${consent.clientId})</span>` : ''}
<p>Allowed: ${consent.scope.length > 0 ? consent.scope.join(', ') : 'to know that you signed in'}</p>
<form method="post" action="${action}">
<input type="hidden" name="client_id" value="${consent.clientId}">
<input type="hidden" name="csrf" value="${holder.csrf(revokeSubject(consent.clientId))}">
<button type="submit">Revoke</button>
</form>
</li>`,
      );
      return { body: html`<ul class="applications">${items}</ul>` };
    },
    routes(app, tools) {
      app.post(REVOKE_PATH, async (request, reply) => {
        const form = formParams(request.body, ['client_id', 'csrf']);
        if (form.client_id === undefined) throw new InvalidFormError();
        const holder = await tools.holder(request, reply, revokeSubject(form.client_id), form.csrf);
        if (!holder) return reply;
        const revoked = await tools.store.consents.revoke(holder.realm.name, holder.userId, form.client_id);
        if (revoked) {
          app.audit.record({
            realm: holder.realm.name,
            type: 'consent.revoked',
            clientId: form.client_id,
            userId: holder.userId,
            address: request.ip,
            details: { via: 'account' },
          });
        }
        const client = revoked ? await tools.store.clients.get(holder.realm.name, form.client_id) : undefined;
        const name = client?.client_name || form.client_id;
        return tools.backToAccount(
          reply,
          holder.realm,
          revoked ? `${name} no longer has access to your account.` : 'That application has no access to revoke.',
        );
      });
    },
  };
}
