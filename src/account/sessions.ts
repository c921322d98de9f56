import { formParams } from '../http/form-params.js';
import { sessionsSectionBody, signedOutPage } from '../pages/account/sessions.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { Store } from '../store/index.js';
import { InvalidFormError } from '../web/page-routes.js';
import type { AccountSection } from './section.js';

const END_PATH = '/account/sessions/end';
const END_ALL_PATH = '/account/sessions/end-all';
const END_ALL = 'sessions end all';

/** A sign-out form's CSRF token names the session, so that it ends nothing else. */
const endSubject = (sid: string): string => `sessions end ${sid}`;

/**
 * "Sessions": the person's live sessions at the realm, the browser's own marked, each with
 * a form that signs it out (`SessionStore.endForUser`: the tokens issued under it are
 * revoked), and one that signs them all out. Signing out this browser's session clears its cookie too.
 */
export function sessionsSection(store: Pick<Store, 'sessions'>, audit: AuditLog): AccountSection {
  return {
    title: (t) => t.account.sections.sessions,
    async render(holder) {
      const sessions = await store.sessions.listForUser(holder.realm.name, holder.userId);
      const action = `${holder.realm.issuer}${END_PATH}`;
      const views = sessions.map((session) => ({
        sid: session.sid,
        signedInAt: session.authTime,
        amr: session.amr,
        endsAt: session.expiresAt,
        thisBrowser: session.sid === holder.session.sid,
        end: { action, csrf: holder.csrf(endSubject(session.sid)) },
      }));
      const endAll = { action: `${holder.realm.issuer}${END_ALL_PATH}`, csrf: holder.csrf(END_ALL) };
      return { body: sessionsSectionBody(holder.t, views, endAll) };
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
          return tools.sendAccountPage(reply, holder.realm, signedOutPage(holder.t));
        }
        const texts = holder.t.account.sessions;
        return tools.backToAccount(reply, holder.realm, ended ? texts.ended : texts.alreadyEnded);
      });
      // Every session of the person, this browser's too (as a password change does, but without one).
      app.post(END_ALL_PATH, async (request, reply) => {
        const form = formParams(request.body, ['csrf']);
        const holder = await tools.holder(request, reply, END_ALL, form.csrf);
        if (!holder) return reply;
        const count = await tools.store.sessions.endAllForUser(holder.realm.name, holder.userId);
        audit.record({ realm: holder.realm.name, type: 'user.sessions_ended', userId: holder.userId, address: request.ip, details: { via: 'account', sessions: count } });
        tools.cookies.clearSession(reply, holder.realm);
        return tools.sendAccountPage(reply, holder.realm, signedOutPage(holder.t, holder.t.account.sessions.signedOutEverywhere));
      });
    },
  };
}
