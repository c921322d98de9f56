import type { FastifyReply } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import { remainingLifetimeOf } from '../authn/transaction-rules.js';
import { BruteForceGuard } from '../authn/brute-force.js';
import { type PasswordHashing, hashPassword } from '../authn/password-hashing.js';
import { verifyPassword } from '../authn/password-verification.js';
import { newPasswordProblem } from '../authn/self-service/new-password.js';
import { emailOf } from '../authn/self-service/verification.js';
import { formParams } from '../http/form-params.js';
import { passwordChangePage, passwordSectionBody } from '../pages/account/password-change.js';
import type { Store } from '../store/index.js';
import { randomSecret, sha256 } from '../secrets.js';
import type { AccountHolder, AccountSection, AccountTools } from './section.js';

const CHANGE = 'password change';
const CHANGE_PATH = '/account/password';

const changeForm = (holder: AccountHolder) => ({ action: `${holder.realm.issuer}${CHANGE_PATH}`, csrf: holder.csrf(CHANGE) });

/**
 * "Password" (CONTRACT.md §9): the person changes their password, giving the current one. A
 * change of how the person signs in, so the re-authentication rule applies
 * (src/account/reauthentication.ts); the current password is a sign-in's check, counted in the
 * account's brute-force budget (src/authn/brute-force.ts). The new password follows the realm's
 * policy; setting it ends the person's sessions and revokes their grants (UserStore.update,
 * CONTRACT.md §7), and this browser goes on in a new session of the same sign-in.
 */
export function passwordSection(deps: { store: Pick<Store, 'users' | 'sessions' | 'attemptCounters'>; audit: AuditLog; passwordHashing: PasswordHashing }): AccountSection {
  const { store, passwordHashing } = deps;
  const bruteForce = new BruteForceGuard(store.attemptCounters);

  /** This browser's sign-in, in a new session: the change ended the one it had. */
  /** False when no session began: the person was disabled or deleted meanwhile. */
  async function renewSession(reply: FastifyReply, tools: AccountTools, holder: AccountHolder): Promise<boolean> {
    const { realm, session } = holder;
    const secret = randomSecret();
    const lifetimeSeconds = remainingLifetimeOf(session);
    const { authTime, amr, journey, acr, nodes, locale } = session;
    if (!(await store.sessions.create(sha256(secret), { realm: realm.name, userId: holder.userId, authTime, amr, journey, acr, nodes, lifetimeSeconds, locale }))) return false;
    tools.cookies.setSession(reply, realm, secret, lifetimeSeconds);
    return true;
  }

  return {
    title: (t) => t.account.sections.password,
    async render(holder) {
      const user = await store.users.getById(holder.realm.name, holder.userId);
      return { body: passwordSectionBody(holder.t, user?.passwordHash ? { kind: 'change', form: changeForm(holder) } : { kind: 'none' }) };
    },
    routes(app, tools) {
      app.post(CHANGE_PATH, async (request, reply) => {
        const form = formParams(request.body, ['csrf', 'current_password', 'new_password']);
        const holder = await tools.credentialHolder(request, reply, CHANGE, form.csrf);
        if (!holder) return reply;
        const { realm, userId, username, t } = holder;
        const again = (error: string) => tools.sendAccountPage(reply, realm, passwordChangePage(t, { form: changeForm(holder), error }));
        if (form.current_password === undefined) return again(t.account.password.enterCurrent);

        const check = await bruteForce.reserve(realm, username, request.ip);
        if ('lockedFor' in check) {
          reply.header('retry-after', String(check.lockedFor));
          return again(t.account.password.lockedOut(Math.ceil(check.lockedFor / 60)));
        }
        const user = await verifyPassword(store.users, passwordHashing, realm.name, username, form.current_password);
        if (user?.id !== userId) {
          await bruteForce.failed(check);
          return again(t.account.password.wrongCurrent);
        }
        await bruteForce.passed(check);

        const problem = newPasswordProblem(form.new_password ?? '', realm.settings, { username, email: emailOf(user) });
        if (problem) return again(problem(t));
        const changed = await store.users.update(realm.name, username, { passwordHash: await hashPassword(form.new_password!, passwordHashing) });
        if (changed) deps.audit.record({ realm: realm.name, type: 'user.password_changed', userId, address: request.ip, details: { via: 'account' } });
        // Deleted or disabled meanwhile: their session is gone, and none begins; the account page asks for a sign-in.
        if (!changed || !(await renewSession(reply, tools, holder))) {
          tools.cookies.clearSession(reply, realm);
          return reply.redirect(`${realm.issuer}/account`, 303);
        }
        return tools.backToAccount(reply, realm, t.account.password.changed);
      });
    },
  };
}
