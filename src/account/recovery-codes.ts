import { replaceRecoveryCodes } from '../authn/otp.js';
import { formParams } from '../http/form-params.js';
import { html } from '../pages/html.js';
import type { Store } from '../store/index.js';
import type { AccountSection } from './section.js';

const GENERATE = 'recovery-codes generate';

/**
 * "Recovery codes": how many single-use codes the person has left for when their
 * authenticator app is not at hand, and new ones, shown once on a page of their own.
 */
export function recoveryCodesSection(deps: { store: Store }): AccountSection {
  const { store } = deps;
  return {
    title: 'Recovery codes',
    async render(holder) {
      const left = await store.oneTimeCodes.recoveryCodesLeft(holder.realm.name, holder.userId);
      const status =
        left === 0
          ? 'You have no recovery codes left.'
          : `You have ${left} unused recovery code${left === 1 ? '' : 's'}. Each works once, instead of a one-time code.`;
      return {
        body: html`<p class="recovery-codes-left">${status}</p>
<form method="post" action="${holder.realm.issuer}/account/recovery-codes">
<input type="hidden" name="csrf" value="${holder.csrf(GENERATE)}">
<button type="submit">Generate new codes</button>
</form>`,
      };
    },
    routes(app, tools) {
      app.post('/account/recovery-codes', async (request, reply) => {
        const form = formParams(request.body, ['csrf']);
        const holder = await tools.credentialHolder(request, reply, GENERATE, form.csrf);
        if (!holder) return reply;
        const codes = await replaceRecoveryCodes(store, holder.realm.name, holder.userId);
        request.server.audit.record({ realm: holder.realm.name, type: 'user.recovery_codes_generated', userId: holder.userId, address: request.ip });
        return tools.sendAccountPage(
          reply,
          holder.realm,
          'Your recovery codes',
          html`<p class="notice" role="status">New recovery codes created.</p>
<p>Keep these codes somewhere safe: they are shown only this once. Each works once, where a one-time code is asked for. Your previous codes no longer work.</p>
<ul class="recovery-codes">
${codes.map((code) => html`<li><code>${code}</code></li>\n`)}</ul>`,
        );
      });
    },
  };
}
