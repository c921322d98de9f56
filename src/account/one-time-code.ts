import type { FastifyReply } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import { base32Of, issuerLabel, otpauthUri, pendingTotpSecret, storedPendingSecret, verifyOneTimeCode } from '../authn/otp.js';
import { formParams } from '../http/form-params.js';
import { oneTimeCodeSectionBody, otpEnrolmentPage } from '../pages/account/one-time-code.js';
import type { Store } from '../store/index.js';
import type { Text } from '../pages/i18n/index.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import type { FirstFactorCode } from './enrolment-code.js';
import type { AccountHolder, AccountSection, AccountTools } from './section.js';

/** The CSRF subjects of the section's forms: a token of one action does not serve another. */
const ENROL = 'otp enrol';
const CONFIRM = 'otp confirm';
const REMOVE = 'otp remove';

/** A form of the section: its action below `/account/otp/`, its CSRF token of `subject`. */
const otpForm = (holder: AccountHolder, path: string, subject: string) => ({ action: `${holder.realm.issuer}/account/otp/${path}`, csrf: holder.csrf(subject) });

/**
 * "One-time code": whether an authenticator app gives the person codes; setting one up (its
 * secret shown on a page of its own, confirmed by a first code) or removing it.
 */
export function oneTimeCodeSection(deps: { store: Pick<Store, 'oneTimeCodes'>; encryption: KeyEncryption; firstFactor: FirstFactorCode; audit: AuditLog }): AccountSection {
  const { store, encryption, firstFactor } = deps;

  /** The page that shows the pending secret and asks for its first code. */
  function enrolmentPage(reply: FastifyReply, tools: AccountTools, holder: AccountHolder, secret: Buffer, error?: Text) {
    const page = otpEnrolmentPage(holder.t, {
      confirm: otpForm(holder, 'confirm', CONFIRM),
      otpauthUri: otpauthUri(issuerLabel(holder.realm), holder.username, secret),
      secretBase32: base32Of(secret),
      error: error?.(holder.t),
    });
    return tools.sendAccountPage(reply, holder.realm, page);
  }

  return {
    title: (t) => t.account.sections.oneTimeCode,
    async render(holder) {
      const totp = await store.oneTimeCodes.totp(holder.realm.name, holder.userId);
      const view = totp?.confirmedAt
        ? ({ kind: 'set-up', confirmedAt: totp.confirmedAt, remove: otpForm(holder, 'remove', REMOVE) } as const)
        : (await firstFactor.pending(holder))
          ? ({ kind: 'code-first', code: firstFactor.form(holder) } as const)
          : ({ kind: 'none', enrol: otpForm(holder, 'enrol', ENROL) } as const);
      return { body: oneTimeCodeSectionBody(holder.t, view) };
    },
    routes(app, tools) {
      app.post('/account/otp/enrol', async (request, reply) => {
        const form = formParams(request.body, ['csrf']);
        const holder = await tools.credentialHolder(request, reply, ENROL, form.csrf);
        if (!holder) return reply;
        const gated = await firstFactor.pending(holder);
        if (gated) return tools.backToAccount(reply, holder.realm, await firstFactor.mailFirst(holder, gated));
        const secret = await pendingTotpSecret(store, encryption, holder.realm.name, holder.userId, { fresh: true });
        if (!secret) return tools.backToAccount(reply, holder.realm, holder.t.account.oneTimeCode.alreadySetUp);
        return enrolmentPage(reply, tools, holder, secret);
      });

      app.post('/account/otp/confirm', async (request, reply) => {
        const form = formParams(request.body, ['csrf', 'otp']);
        const holder = await tools.credentialHolder(request, reply, CONFIRM, form.csrf);
        if (!holder) return reply;
        const { realm, userId } = holder;
        const gated = await firstFactor.pending(holder);
        if (gated) return tools.backToAccount(reply, realm, await firstFactor.mailFirst(holder, gated));
        const pending = await storedPendingSecret(store, encryption, realm.name, userId);
        if (!pending) return tools.backToAccount(reply, realm, holder.t.account.oneTimeCode.nothingToConfirm);
        const code = form.otp?.replace(/\s/g, '') ?? '';
        // Only a code of the app confirms it: a recovery code says nothing about the new secret.
        const kind = /^\d+$/.test(code) ? await verifyOneTimeCode(store, encryption, realm.name, userId, code, { pending: true }) : undefined;
        if (kind !== 'otp') return enrolmentPage(reply, tools, holder, pending, (t) => t.signIn.wrongCode);
        deps.audit.record({ realm: realm.name, type: 'user.totp_enrolled', userId, address: request.ip, details: { via: 'account' } });
        return tools.backToAccount(reply, realm, holder.t.account.oneTimeCode.confirmed);
      });

      app.post('/account/otp/remove', async (request, reply) => {
        const form = formParams(request.body, ['csrf']);
        const holder = await tools.credentialHolder(request, reply, REMOVE, form.csrf);
        if (!holder) return reply;
        await store.oneTimeCodes.removeTotp(holder.realm.name, holder.userId);
        deps.audit.record({ realm: holder.realm.name, type: 'user.totp_removed', userId: holder.userId, address: request.ip });
        return tools.backToAccount(reply, holder.realm, holder.t.account.oneTimeCode.removed);
      });
    },
  };
}
