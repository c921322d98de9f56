import { html } from '../pages/html.js';
import { type Locale, type Messages, messagesIn } from '../pages/i18n/index.js';
import type { RealmTexts } from '../records/realm-texts.js';
import type { MailMessage } from './mailer.js';

export { realmLabel } from '../pages/branding.js';

/** What a mail says about where it comes from and whom it greets. */
export interface MailContext {
  /** The realm as people know it: `realmLabel`. */
  readonly realm: string;
  /**
   * The person's username, only when the address is confirmed as theirs: whoever typed an
   * unconfirmed address chose the username too, and a mail must not carry their words.
   */
  readonly username: string | undefined;
  /** The page the mail sends the person to, with its ticket. */
  readonly link: string;
  /** Seconds until the link stops working (the realm's `ticket_lifetime`); none for a link without a ticket. */
  readonly lifetime: number | undefined;
  /** The language of the page that caused the mail (CONTRACT.md §10); English when none is named. */
  readonly locale?: Locale | undefined;
  /** The realm's own words for its mails (CONTRACT.md §16). */
  readonly texts?: RealmTexts | undefined;
}

/**
 * A page of this server that a mail links to, in the mail's language (CONTRACT.md §16): the
 * page opens in it whatever the browser that opens it prefers.
 */
export function mailedLink(issuer: string, path: string, params: Readonly<Record<string, string>>, locale: Locale | undefined): string {
  const query = new URLSearchParams(params);
  if (locale !== undefined) query.set('ui_locales', locale);
  const search = query.toString();
  return `${issuer}${path}${search === '' ? '' : `?${search}`}`;
}

/** The mail of a new address, whose link confirms it (CONTRACT.md §9 `email_verification`). */
export function verificationMail(to: string, context: MailContext): MailMessage {
  return message(to, context, (t) => t.mail.verification);
}

/** The mail of a forgotten password, whose link lets its person choose a new one (CONTRACT.md §9 `password_reset`). */
export function passwordResetMail(to: string, context: MailContext): MailMessage {
  return message(to, context, (t) => t.mail.passwordReset);
}

/** The code a sign-in asks for before a first second factor is enrolled (CONTRACT.md §8): a code to type, no link. */
export function enrolmentCodeMail(
  to: string,
  context: Pick<MailContext, 'realm' | 'locale' | 'texts'> & { readonly username: string; readonly lifetime: number; readonly code: string },
): MailMessage {
  const t = messagesIn(context.locale ?? 'en', context.texts);
  const wording = t.mail.enrolmentCode;
  const subject = wording.subject(context.realm);
  const lead = wording.lead(context.realm, context.username);
  const hello = t.mail.hello(context.username);
  const expiry = t.mail.codeExpiry(context.lifetime);
  const text = [hello, lead, context.code, expiry, wording.ignore, `— ${context.realm}`].join('\n\n');
  const body = html`<!doctype html>
<html lang="${t.lang}"><head><meta charset="utf-8"><title>${subject}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5">
<p>${hello}</p>
<p>${lead}</p>
<p style="font-size: 1.5em; letter-spacing: .2em"><strong>${context.code}</strong></p>
<p>${expiry}</p>
<p>${wording.ignore}</p>
<p>— ${context.realm}</p>
</body></html>`;
  return { to, subject: oneLine(subject), text: `${text}\n`, html: body.value };
}

/**
 * The mail to the owner of an address someone tried to register again (CONTRACT.md §7): no
 * account was made; its link is the account page.
 */
export function addressTakenMail(to: string, context: MailContext): MailMessage {
  return message(to, context, (t) => t.mail.addressTaken);
}

type Wording = Messages['mail']['passwordReset'];

function message(to: string, context: MailContext, wordingOf: (t: Messages) => Wording): MailMessage {
  const t = messagesIn(context.locale ?? 'en', context.texts);
  const wording = wordingOf(t);
  const subject = wording.subject(context.realm);
  const lead = wording.lead(context.realm, context.username);
  const hello = t.mail.hello(context.username);
  const expiry = context.lifetime === undefined ? undefined : t.mail.expiry(context.lifetime);
  const text = [hello, lead, `${t.mail.beforeLink(wording.action)}\n${context.link}`, expiry, wording.ignore, `— ${context.realm}`]
    .filter((part) => part !== undefined)
    .join('\n\n');
  const body = html`<!doctype html>
<html lang="${t.lang}"><head><meta charset="utf-8"><title>${subject}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5">
<p>${hello}</p>
<p>${lead}</p>
<p><a href="${context.link}">${wording.action}</a></p>
<p>${t.mail.copyLink} ${context.link}</p>
${expiry === undefined ? '' : html`<p>${expiry}</p>`}
<p>${wording.ignore}</p>
<p>— ${context.realm}</p>
</body></html>`;
  return { to, subject: oneLine(subject), text: `${text}\n`, html: body.value };
}

/** A subject holds no line breaks or other control characters, whatever a realm's name holds. */
const oneLine = (text: string): string => text.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ');
