import { formParams } from '../http/form-params.js';
import type { AuditLog } from '../audit/audit-log.js';
import { applicationsSectionBody } from '../pages/account/applications.js';
import type { Store } from '../store/index.js';
import { InvalidFormError } from '../web/page-routes.js';
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
export function applicationsSection(store: Pick<Store, 'clients' | 'consents'>, audit: AuditLog): AccountSection {
  return {
    title: (t) => t.account.sections.applications,
    async render(holder) {
      const consents = await store.consents.listForUser(holder.realm.name, holder.userId);
      const action = `${holder.realm.issuer}${REVOKE_PATH}`;
      const views = consents.map((consent) => ({
        clientId: consent.clientId,
        clientName: consent.clientName,
        scope: consent.scope,
        revoke: { action, csrf: holder.csrf(revokeSubject(consent.clientId)) },
      }));
      return { body: applicationsSectionBody(holder.t, views) };
    },
    routes(app, tools) {
      app.post(REVOKE_PATH, async (request, reply) => {
        const form = formParams(request.body, ['client_id', 'csrf']);
        if (form.client_id === undefined) throw new InvalidFormError();
        const holder = await tools.holder(request, reply, revokeSubject(form.client_id), form.csrf);
        if (!holder) return reply;
        const revoked = await tools.store.consents.revoke(holder.realm.name, holder.userId, form.client_id);
        if (revoked) {
          audit.record({
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
        const texts = holder.t.account.applications;
        return tools.backToAccount(reply, holder.realm, revoked ? texts.revoked(name) : texts.nothingToRevoke);
      });
    },
  };
}
