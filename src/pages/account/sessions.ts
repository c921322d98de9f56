import { type SafeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import { noticeBox } from '../parts.js';
import { type AccountForm, csrfInput, textWithDates } from './form.js';
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
const methodsOf = (t: Messages, amr: readonly string[]): string => {
  const names = t.account.sessions.methods;
  return [...new Set(amr.map((method) => (Object.hasOwn(names, method) ? names[method]! : method)))].join(', ');
};

export function sessionsSectionBody(t: Messages, sessions: readonly SessionView[], endAll: AccountForm): SafeHtml {
  const texts = t.account.sessions;
  const items = sessions.map(
    (session) => html`<li class="session">
<p>${textWithDates(t, [session.signedInAt, session.endsAt], (signedIn, ends) => texts.signedIn(signedIn!, methodsOf(t, session.amr), ends!))}${
      session.thisBrowser ? html` <strong class="this-browser">${texts.thisBrowser}</strong>` : ''
    }</p>
<form method="post" action="${session.end.action}">
<input type="hidden" name="sid" value="${session.sid}">
${csrfInput(session.end.csrf)}
<button type="submit">${texts.signOut}</button>
</form>
</li>`,
  );
  return html`<ul class="sessions">${items}</ul>
<form method="post" action="${endAll.action}">
${csrfInput(endAll.csrf)}
<p>${texts.signOutEverywhereHint}</p>
<button type="submit">${texts.signOutEverywhere}</button>
</form>`;
}

/** After the person signed out this browser's own session from the list. */
export function signedOutPage(t: Messages, notice = t.account.sessions.signedOut): AccountSubpage {
  return { title: t.account.sessions.signedOutTitle, body: noticeBox(notice) };
}
