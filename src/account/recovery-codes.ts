import { replaceRecoveryCodes } from '../authn/otp.js';
import type { AuditLog } from '../audit/audit-log.js';
import { formParams } from '../http/form-params.js';
import { newRecoveryCodesPage, recoveryCodesSectionBody } from '../pages/account/recovery-codes.js';
import type { Store } from '../store/index.js';
import type { AccountSection } from './section.js';

const GENERATE = 'recovery-codes generate';

/**
 * "Recovery codes": how many single-use codes the person has left for when their
 * authenticator app is not at hand, and new ones, shown once on a page of their own.
 */
export function recoveryCodesSection(deps: { store: Pick<Store, 'oneTimeCodes'>; audit: AuditLog }): AccountSection {
  const { store } = deps;
  return {
    title: (t) => t.account.sections.recoveryCodes,
    async render(holder) {
      const held = await store.oneTimeCodes.recoveryCodesHeld(holder.realm.name, holder.userId);
      const generate = { action: `${holder.realm.issuer}/account/recovery-codes`, csrf: holder.csrf(GENERATE) };
      return { body: recoveryCodesSectionBody(holder.t, { ...held, generate }) };
    },
    routes(app, tools) {
      app.post('/account/recovery-codes', async (request, reply) => {
        const form = formParams(request.body, ['csrf']);
        const holder = await tools.credentialHolder(request, reply, GENERATE, form.csrf);
        if (!holder) return reply;
        const codes = await replaceRecoveryCodes(store, holder.realm.name, holder.userId);
        deps.audit.record({ realm: holder.realm.name, type: 'user.recovery_codes_generated', userId: holder.userId, address: request.ip });
        return tools.sendAccountPage(reply, holder.realm, newRecoveryCodesPage(holder.t, codes));
      });
    },
  };
}
