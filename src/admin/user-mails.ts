import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { Mailed } from '../authn/self-service/counted-mail.js';
import { mailPasswordReset } from '../authn/self-service/reset.js';
import { emailOf, mailVerification } from '../authn/self-service/verification.js';
import { type Locale, isLocale } from '../pages/i18n/index.js';
import type { RequestRealm } from '../records/realm.js';
import { MAIL_LIMIT } from '../store/mail-allowances.js';
import { TICKET_LIMITS } from '../store/tickets.js';
import type { User } from '../store/users.js';
import { actorOf } from './caller.js';
import type { AdminDeps } from './deps.js';
import { conflict, notFound, parseInput } from './validate.js';

type Params = { Params: { realm: string; username: string } };

/** The calls take no body: an empty object, or none. */
export const OperatorMailSchema = z.strictObject({});

/**
 * The person's language for a mail an operator sends: their `locale` claim when the realm
 * offers it, else the realm's first language (CONTRACT.md §16).
 */
function localeFor(user: User, realm: RequestRealm): Locale {
  const claimed = typeof user.claims.locale === 'string' ? user.claims.locale.split('-')[0]!.toLowerCase() : undefined;
  const offered = realm.settings.locales;
  if (claimed !== undefined && isLocale(claimed) && offered.includes(claimed)) return claimed;
  return offered[0] ?? 'en';
}

const REFUSALS: Readonly<Record<Exclude<Mailed, 'sent'>, string>> = {
  limited:
    `the mail limit for this person or address is reached (${TICKET_LIMITS.perPerson} links per person in ${TICKET_LIMITS.windowSeconds / 60} minutes, ` +
    `${MAIL_LIMIT.perRecipient} mails per address an hour): try again later`,
  failed: 'the mail server did not take the mail: try again later',
};

/**
 * `POST /admin/realms/{realm}/users/{username}/send-reset` and `…/send-verification`
 * (CONTRACT.md §16): an operator has the person mailed the link the self-service pages send,
 * within the same limits (the tickets' per person and per address, the recipient's per hour).
 * 202 once the mail server took it; 409 naming the reason when it cannot go: no `SMTP_URL`,
 * no email address, a disabled person, password reset off in the realm, or a limit reached.
 */
export function userMailRoutes({ store, mailer, audit }: AdminDeps): FastifyPluginAsync {
  const deps = { store, mailer };

  async function recipient(realm: RequestRealm, username: string, body: unknown): Promise<{ user: User; email: string }> {
    parseInput(OperatorMailSchema, body);
    const user = await store.users.get(realm.name, username);
    if (!user) throw notFound('user');
    if (!mailer) throw conflict('mail is not configured on this server: set SMTP_URL');
    const email = emailOf(user);
    if (email === undefined) throw conflict('the person has no email address');
    if (!user.enabled) throw conflict('the person is disabled');
    return { user, email };
  }

  const refuseUnsent = (mailed: Mailed): void => {
    if (mailed !== 'sent') throw conflict(REFUSALS[mailed]);
  };

  return async (app) => {
    app.post<Params>('/users/:username/send-reset', async (request, reply) => {
      const realm = request.realm;
      const { user, email } = await recipient(realm, request.params.username, request.body);
      if (!realm.settings.password_reset) throw conflict('password reset is off in the realm (settings.password_reset): the link would not open');
      refuseUnsent(await mailPasswordReset(deps, realm, user, email, { address: request.ip, locale: localeFor(user, realm) }));
      audit.record({ realm: realm.name, type: 'user.password_reset_sent', userId: user.id, address: request.ip, details: { username: user.username, actor: actorOf(request) } });
      return reply.code(202).send();
    });

    app.post<Params>('/users/:username/send-verification', async (request, reply) => {
      const realm = request.realm;
      const { user } = await recipient(realm, request.params.username, request.body);
      refuseUnsent(await mailVerification(deps, realm, user, { address: request.ip, locale: localeFor(user, realm) }));
      audit.record({ realm: realm.name, type: 'user.verification_sent', userId: user.id, address: request.ip, details: { username: user.username, actor: actorOf(request) } });
      return reply.code(202).send();
    });
  };
}
