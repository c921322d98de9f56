import { html } from '../pages/html.js';
import type { MailMessage } from './mailer.js';

/** What a mail says about where it comes from and whom it greets. */
export interface MailContext {
  /** The realm as people know it: `realmLabel`. */
  readonly realm: string;
  readonly username: string;
  /** The page the mail sends the person to, with its ticket. */
  readonly link: string;
  /** Seconds until the link stops working (the realm's `ticket_lifetime`). */
  readonly lifetime: number;
}

/** The realm's `display_name` setting (CONTRACT.md §10) when it has one, else its name. */
export function realmLabel(realm: { readonly name: string; readonly settings: object }): string {
  const displayName = (realm.settings as { display_name?: unknown }).display_name;
  return typeof displayName === 'string' && displayName.trim() !== '' ? displayName.trim() : realm.name;
}

/** The mail of a new address, whose link confirms it (CONTRACT.md §9 `email_verification`). */
export function verificationMail(to: string, context: MailContext): MailMessage {
  return message(to, context, {
    subject: `Confirm your email address for ${context.realm}`,
    lead: `Please confirm that this is your email address for your ${context.realm} account "${context.username}".`,
    action: 'Confirm your email address',
    ignore: 'If you did not create this account, ignore this mail.',
  });
}

/** The mail of a forgotten password, whose link lets its person choose a new one (CONTRACT.md §9 `password_reset`). */
export function passwordResetMail(to: string, context: MailContext): MailMessage {
  return message(to, context, {
    subject: `Reset your ${context.realm} password`,
    lead: `Someone asked to reset the password of your ${context.realm} account "${context.username}".`,
    action: 'Choose a new password',
    ignore: 'If it was not you, ignore this mail: your password stays as it is.',
  });
}

interface Wording {
  subject: string;
  lead: string;
  action: string;
  ignore: string;
}

function message(to: string, context: MailContext, wording: Wording): MailMessage {
  const expiry = `The link works once, within ${duration(context.lifetime)}.`;
  const text = [`Hello ${context.username},`, wording.lead, `${wording.action}:\n${context.link}`, expiry, wording.ignore, `— ${context.realm}`].join('\n\n');
  const body = html`<!doctype html>
<html><head><meta charset="utf-8"><title>${wording.subject}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5">
<p>Hello ${context.username},</p>
<p>${wording.lead}</p>
<p><a href="${context.link}">${wording.action}</a></p>
<p>Or copy this link into your browser: ${context.link}</p>
<p>${expiry}</p>
<p>${wording.ignore}</p>
<p>— ${context.realm}</p>
</body></html>`;
  return { to, subject: oneLine(wording.subject), text: `${text}\n`, html: body.value };
}

/** A subject holds no line breaks or other control characters, whatever a realm's name holds. */
const oneLine = (text: string): string => text.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ');

function duration(seconds: number): string {
  if (seconds < 120) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  if (seconds < 2 * 3600) return `${Math.round(seconds / 60)} minutes`;
  if (seconds < 2 * 86400) return `${Math.round(seconds / 3600)} hours`;
  return `${Math.round(seconds / 86400)} days`;
}
