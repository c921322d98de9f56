import { formParams } from '../http/form-params.js';
import { html } from '../pages/html.js';
import type { Store } from '../store/index.js';
import { InvalidFormError } from '../endpoints/page-routes.js';
import type { AccountSection } from './section.js';

const END_PATH = '/account/sessions/end';

/** A sign-out form's CSRF token names the session, so that it ends nothing else. */
const endSubject = (sid: string): string => `sessions end ${sid}`;

/** RFC 8176 methods as the person knows them; others are shown as they are. */
const METHOD_NAMES: Readonly<Record<string, string>> = {
  pwd: 'password',
  otp: 'one-time code',
  hwk: 'passkey',
  swk: 'passkey',
  mfa: 'multi-factor',
};

const methodsOf = (amr: readonly string[]): string => [...new Set(amr.map((method) => METHOD_NAMES[method] ?? method))].join(', ');

/** Server time in UTC, to the minute: the page is the same for every reader. */
const when = (date: Date): string => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * "Sessions": the person's live sessions at the realm, the browser's own marked, each with
 * a form that signs it out (`SessionStore.endForUser`: the tokens issued under it are
 * revoked). Signing out this browser's session clears its cookie too.
 */
export function sessionsSection(store: Store): AccountSection {
  return {
    title: 'Sessions',
    async render(holder) {
      const sessions = await store.sessions.listForUser(holder.realm.name, holder.userId);
      const action = `${holder.realm.issuer}${END_PATH}`;
      const items = sessions.map(
        (session) => html`<li class="session">
<p>Signed in ${when(session.authTime)} with ${methodsOf(session.amr)}; ends ${when(session.expiresAt)}${
          session.sid === holder.session.sid ? html` <strong class="this-browser">(this browser)</strong>` : ''
        }</p>
<form method="post" action="${action}">
<input type="hidden" name="sid" value="${session.sid}">
<input type="hidden" name="csrf" value="${holder.csrf(endSubject(session.sid))}">
<button type="submit">Sign out</button>
</form>
</li>`,
      );
      return { body: html`<ul class="sessions">${items}</ul>` };
    },
    routes(app, tools) {
      app.post(END_PATH, async (request, reply) => {
        const form = formParams(request.body, ['sid', 'csrf']);
        if (form.sid === undefined) throw new InvalidFormError();
        const holder = await tools.holder(request, reply, endSubject(form.sid), form.csrf);
        if (!holder) return reply;
        const ended = await tools.store.sessions.endForUser(holder.realm.name, holder.userId, form.sid);
        if (form.sid === holder.session.sid) {
          tools.cookies.clearSession(reply, holder.realm);
          const body = html`<p class="notice" role="status">You are signed out of this browser.</p>`;
          return tools.sendAccountPage(reply, holder.realm, 'Signed out', body);
        }
        return tools.backToAccount(reply, holder.realm, ended ? 'The session is signed out.' : 'That session had already ended.');
      });
    },
  };
}
