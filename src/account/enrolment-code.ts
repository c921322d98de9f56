import { EnrolmentCodeGate, type EnrolmentScope, type GatedEnrolment } from '../authn/enrolment-code.js';
import { formParams } from '../http/form-params.js';
import type { Mailer } from '../mail/mailer.js';
import type { AccountForm } from '../pages/account/form.js';
import type { Store } from '../store/index.js';
import type { AccountHolder, AccountSection } from './section.js';

/** The CSRF subject of the code's form. */
const CODE = 'enrolment code';

/**
 * A first second factor set up on the account page (an authenticator app, a passkey) asks
 * first for a one-time code mailed to the person's verified address, as during a sign-in
 * (CONTRACT.md §8, src/authn/enrolment-code.ts): a session that the password alone gave
 * (a journey that asks more only of some clients) cannot make a second factor of its own.
 * The code is bound to the session; a person who has a second factor adds another without
 * one (re-authentication guards that).
 */
export class FirstFactorCode {
  private readonly gate: EnrolmentCodeGate;

  constructor(private readonly deps: { store: Pick<Store, 'users' | 'tickets' | 'mailAllowances' | 'oneTimeCodes' | 'passkeys'>; mailer: Mailer | undefined }) {
    this.gate = new EnrolmentCodeGate(deps);
  }

  /** What a first second factor waits for; undefined when it may be set up (a factor exists, no mail, no verified address, or the code passed). */
  async pending(holder: AccountHolder): Promise<GatedEnrolment | undefined> {
    if (!this.deps.mailer) return undefined;
    const { realm, userId } = holder;
    const [totp, passkeys] = await Promise.all([this.deps.store.oneTimeCodes.totp(realm.name, userId), this.deps.store.passkeys.listForUser(realm.name, userId)]);
    if (totp?.confirmedAt || passkeys.length > 0) return undefined;
    return this.gate.pending(scopeOf(holder));
  }

  /** The code's form, shown in place of setting up a first factor. */
  form(holder: AccountHolder): AccountForm {
    return { action: `${holder.realm.issuer}/account/enrolment-code`, csrf: holder.csrf(CODE) };
  }

  /** An attempt to set up a first factor before the code: the code is mailed (once, until it is spent); the account page's notice. */
  async mailFirst(holder: AccountHolder, gated: GatedEnrolment): Promise<string> {
    const mailed = await this.gate.mailOnce(scopeOf(holder), gated);
    const { t } = holder;
    if (mailed === 'sent') return t.account.enrolmentCode.mailed;
    if (mailed === 'limited') return t.enrolmentCode.tooMany;
    return mailed === 'spent' ? t.enrolmentCode.expired : t.enrolmentCode.notSent;
  }

  /** The route of the code's form; the section shows nothing of its own (the code's form is in the sections it gates). */
  section(): AccountSection {
    return {
      title: (t) => t.account.sections.oneTimeCode,
      render: async () => ({ body: undefined }),
      routes: (app, tools) => {
        app.post('/account/enrolment-code', async (request, reply) => {
          const form = formParams(request.body, ['csrf', 'otp', 'resend']);
          const holder = await tools.credentialHolder(request, reply, CODE, form.csrf);
          if (!holder) return reply;
          const { realm, t } = holder;
          const gated = await this.pending(holder);
          if (!gated) return tools.backToAccount(reply, realm, t.account.enrolmentCode.passed);
          const outcome = await this.gate.submit(scopeOf(holder), gated, form);
          if ('again' in outcome) return tools.backToAccount(reply, realm, t.account.enrolmentCode.passed);
          if ('notice' in outcome) return tools.backToAccount(reply, realm, outcome.notice(t));
          if ('error' in outcome) return tools.backToAccount(reply, realm, outcome.error(t));
          return tools.backToAccount(reply, realm, t.enrolmentCode.enterCode);
        });
      },
    };
  }
}

/** The account page's codes are bound to its session, as a sign-in's are to its transaction. */
const scopeOf = (holder: AccountHolder): EnrolmentScope => ({
  realm: holder.realm,
  transactionId: `account session\0${holder.session.sid}`,
  userId: holder.userId,
  address: holder.address,
  locale: holder.locale,
});
