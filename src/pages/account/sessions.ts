import { type SafeHtml, html } from '../html.js';
import { noticeBox } from '../parts.js';
import { type AccountForm, csrfInput, utcMinute } from './form.js';
import type { AccountSubpage } from './page.js';

/** A live session of the person, with the form that signs it out. */
export interface SessionView {
  readonly sid: string;
  readonly signedInAt: Date;
  /** RFC 8176 methods of its sign-in. */
  readonly amr: readonly string[];
  readonly endsAt: Date;
  readonly thisBrowser: boolean;
  readonly end: AccountForm;
}

/** RFC 8176 methods as the person knows them; others are shown as they are. */
const METHOD_NAMES: Readonly<Record<string, string>> = {
  pwd: 'password',
  otp: 'one-time code',
  hwk: 'passkey',
  swk: 'passkey',
  mfa: 'multi-factor',
};

const methodsOf = (amr: readonly string[]): string => [...new Set(amr.map((method) => METHOD_NAMES[method] ?? method))].join(', ');

export function sessionsSectionBody(sessions: readonly SessionView[]): SafeHtml {
  const items = sessions.map(
    (session) => html`<li class="session">
<p>Signed in ${utcMinute(session.signedInAt)} with ${methodsOf(session.amr)}; ends ${utcMinute(session.endsAt)}${
      session.thisBrowser ? html` <strong class="this-browser">(this browser)</strong>` : ''
    }</p>
<form method="post" action="${session.end.action}">
<input type="hidden" name="sid" value="${session.sid}">
${csrfInput(session.end.csrf)}
<button type="submit">Sign out</button>
</form>
</li>`,
  );
  return html`<ul class="sessions">${items}</ul>`;
}

/** After the person signed out this browser's own session from the list. */
export function signedOutPage(): AccountSubpage {
  return { title: 'Signed out', body: noticeBox('You are signed out of this browser.') };
}
