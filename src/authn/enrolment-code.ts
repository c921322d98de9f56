import { randomInt } from 'node:crypto';
import type { Mailer } from '../mail/mailer.js';
import { enrolmentCodeMail, realmLabel } from '../mail/messages.js';
import { sendCounted } from './self-service/counted-mail.js';
import type { SignInView } from './nodes/views.js';
import type { Store } from '../store/index.js';
import type { User } from '../store/users.js';
import { sha256 } from '../secrets.js';
import type { NodeContext, NodeOutcome } from './nodes/node.js';
import { emailOf } from './self-service/verification.js';

const CODE_DIGITS = 6;
/** A mailed code works this long at most (less when the realm's tickets live less). */
const CODE_LIFETIME_SECONDS = 10 * 60;

/** An enrolment that waits for the code mailed to the person's verified address. */
export interface GatedEnrolment {
  readonly user: User;
  readonly email: string;
}

export interface EnrolmentCodeDeps {
  readonly store: Pick<Store, 'users' | 'tickets' | 'mailAllowances'>;
  /** None without `SMTP_URL`: nothing can be mailed, and enrolment is not gated. */
  readonly mailer: Mailer | undefined;
}

/**
 * Where a code is asked: a sign-in (its node context), or the account page, whose
 * `transactionId` is then its session's id (src/account/enrolment-code.ts).
 */
export type EnrolmentScope = Pick<NodeContext, 'realm' | 'transactionId' | 'userId' | 'address' | 'locale'>;

const transactionHashOf = (context: EnrolmentScope): Buffer => sha256(context.transactionId);

/** The code as stored: bound to the sign-in's secret transaction id, so that a copy of the table does not give the codes away at a glance. */
const codeHashOf = (context: EnrolmentScope, code: string): Buffer => sha256(`enrolment code\0${context.transactionId}\0${code}`);

/**
 * A first second factor enrolled during a sign-in (an `otp` node for a person without an
 * authenticator app, a `passkey` node that enrols) asks first for a one-time code mailed to the
 * person's verified email address, when the realm can send mail (CONTRACT.md §8): whoever
 * holds only the password cannot make a second factor of their own. The code works only for
 * this sign-in (its transaction), only while it lives, and for a few tries; each mail counts
 * under the tickets' limits per person and per address (src/store/tickets.ts).
 */
export class EnrolmentCodeGate {
  constructor(private readonly deps: EnrolmentCodeDeps) {}

  /** What the enrolment waits for; undefined when it may go on (no mail, no verified address, or the code passed). */
  async pending(context: EnrolmentScope): Promise<GatedEnrolment | undefined> {
    const { userId, realm } = context;
    if (!this.deps.mailer || userId === undefined) return undefined;
    const user = await this.deps.store.users.getById(realm.name, userId);
    const email = user && user.claims.email_verified === true ? emailOf(user) : undefined;
    if (!user || email === undefined) return undefined;
    const state = await this.deps.store.tickets.enrolmentCodeState(realm.name, userId, transactionHashOf(context));
    return state === 'passed' ? undefined : { user, email };
  }

  /** The page that asks for the code; the first time for this sign-in, the code is mailed first. */
  async view(context: EnrolmentScope, gated: GatedEnrolment): Promise<SignInView> {
    return { kind: 'enrolment_code', mailed: await this.mailOnce(context, gated) };
  }

  /** Mails the code the first time it is asked for (for this sign-in); what became of it. */
  async mailOnce(context: EnrolmentScope, gated: GatedEnrolment): Promise<'sent' | 'limited' | 'failed' | 'spent'> {
    const state = await this.deps.store.tickets.enrolmentCodeState(context.realm.name, gated.user.id, transactionHashOf(context));
    const mailed = state === 'none' ? await this.mail(context, gated) : state;
    return mailed === 'passed' ? 'sent' : mailed;
  }

  /** A posted code form: the mail sent again, or the code checked (one try of its few). */
  async submit(context: EnrolmentScope, gated: GatedEnrolment, form: { readonly otp?: string | undefined; readonly resend?: string | undefined }): Promise<NodeOutcome> {
    if (form.resend !== undefined) {
      const mailed = await this.mail(context, gated);
      if (mailed === 'sent') return { notice: (t) => t.enrolmentCode.resent };
      return { error: mailed === 'limited' ? (t) => t.enrolmentCode.tooMany : (t) => t.enrolmentCode.notSent, failure: false };
    }
    const code = (form.otp ?? '').replace(/\s/g, '');
    if (code === '') return { error: (t) => t.enrolmentCode.enterCode, failure: false };
    const checked = /^\d+$/.test(code) && code.length === CODE_DIGITS
      ? await this.deps.store.tickets.checkEnrolmentCode(context.realm.name, gated.user.id, transactionHashOf(context), codeHashOf(context, code))
      : 'wrong';
    if (checked === 'passed') return { again: true };
    if (checked === 'none') return { error: (t) => t.enrolmentCode.expired, failure: false };
    return { error: (t) => t.enrolmentCode.wrongCode, failure: true };
  }

  private async mail(context: EnrolmentScope, gated: GatedEnrolment): Promise<'sent' | 'limited' | 'failed'> {
    const { realm } = context;
    const code = String(randomInt(10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
    const lifetime = Math.min(CODE_LIFETIME_SECONDS, realm.settings.ticket_lifetime);
    const codes = { transactionHash: transactionHashOf(context), codeHash: codeHashOf(context, code) };
    if ((await this.deps.store.tickets.issueEnrolmentCode(realm.name, gated.user.id, context.address, lifetime, codes)) === 'limited') return 'limited';
    const mail = enrolmentCodeMail(gated.email, { realm: realmLabel(realm), username: gated.user.username, code, lifetime, locale: context.locale, texts: realm.texts });
    return sendCounted(this.deps, realm, mail);
  }
}
