import type { AuditLog } from '../audit/audit-log.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { accountSections } from '../account/index.js';
import { signedInRecently } from '../account/reauthentication.js';
import type { AccountHolder, AccountTools } from '../account/section.js';
import type { AuthorizationFlow } from './authorization-flow.js';
import type { BrowserCookies } from './browser-cookies.js';
import { formParams } from '../http/form-params.js';
import type { Broker } from '../identity-providers/broker.js';
import type { Mailer } from '../mail/mailer.js';
import type { PasswordHashing } from '../authn/password-hashing.js';
import { accountOverviewPage, accountSubpage } from '../pages/account/page.js';
import { localeOf, messagesOf } from './locale.js';
import { sendPage } from './send-page.js';
import type { RequestRealm } from '../records/realm.js';
import type { Store } from '../store/index.js';
import type { Session } from '../store/sessions.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import { GET_ONLY, InvalidFormError } from './page-routes.js';

/** A notice is a sentence; a longer one is cut. */
const MAX_NOTICE_LENGTH = 200;

/** The account page, with a notice at its top that only this server can have written (its MAC). */
export const accountNoticeUrl = (cookies: BrowserCookies, realm: RequestRealm, notice: string): string =>
  `${realm.issuer}/account?notice=${encodeURIComponent(notice)}&mac=${cookies.textMac(notice)}`;

/**
 * The account page (`{issuer}/account`): the signed-in person manages how they sign in (one-
 * time codes, passkeys, recovery codes), the applications they allowed, and their sessions.
 * Without a session, the person signs in first (the realm's steps) and comes back here.
 */
export function accountPage(deps: {
  store: Store;
  flow: AuthorizationFlow;
  cookies: BrowserCookies;
  encryption: KeyEncryption;
  baseUrl: string;
  broker: Broker;
  mailer: Mailer | undefined;
  audit: AuditLog;
  /** argon2id's cost for new passwords (src/authn/password-hashing.ts). */
  passwordHashing: PasswordHashing;
}): FastifyPluginAsync {
  const { store, flow, cookies } = deps;
  const sections = accountSections({ store, encryption: deps.encryption, baseUrl: deps.baseUrl, broker: deps.broker, mailer: deps.mailer, audit: deps.audit, passwordHashing: deps.passwordHashing });
  const accountUrl = (realm: RequestRealm) => `${realm.issuer}/account`;

  async function holderOf(request: FastifyRequest, realm: RequestRealm, session: Session, browserHash: Buffer): Promise<AccountHolder> {
    const username = (await store.users.usernameOf(realm.name, session.userId)) ?? '';
    return {
      realm,
      session,
      userId: session.userId,
      username,
      recentSignIn: signedInRecently(session, realm),
      csrf: (subject) => cookies.csrfToken(browserHash, `account ${subject}`),
      t: messagesOf(request),
      locale: localeOf(request),
      address: request.ip,
    };
  }

  /** A sign-in whose way back is the account page; the session it replaces stays until it succeeds. */
  const signIn = (request: FastifyRequest, reply: FastifyReply, realm: RequestRealm) =>
    flow.begin(request, reply, realm, { clientId: undefined, purpose: { kind: 'sign-in', returnTo: 'account' }, fit: undefined });

  async function holder(request: FastifyRequest, reply: FastifyReply, subject: string, csrf: string | undefined): Promise<AccountHolder | undefined> {
    const realm = request.realm;
    const session = await flow.currentSession(request, realm);
    if (!session) {
      await reply.redirect(accountUrl(realm), 303);
      return undefined;
    }
    if (!cookies.csrfTokenMatches(request, realm, `account ${subject}`, csrf)) throw new InvalidFormError();
    return holderOf(request, realm, session, cookies.browserHash(request, realm)!);
  }

  const tools: AccountTools = {
    store,
    flow,
    cookies,
    encryption: deps.encryption,
    baseUrl: deps.baseUrl,
    holder,
    async credentialHolder(request, reply, subject, csrf) {
      const found = await holder(request, reply, subject, csrf);
      if (!found || found.recentSignIn) return found;
      await signIn(request, reply, found.realm);
      return undefined;
    },
    backToAccount(reply, realm, notice) {
      return reply.redirect(accountNoticeUrl(cookies, realm, notice), 303);
    },
    sendAccountPage(reply, realm, page) {
      const rendered = accountSubpage(messagesOf(reply.request), { accountUrl: accountUrl(realm), page });
      return sendPage(reply, rendered.options, rendered.body);
    },
  };

  return async (app) => {
    app.get('/account', GET_ONLY, async (request, reply) => {
      const realm = request.realm;
      const session = await flow.currentSession(request, realm);
      if (!session) {
        return signIn(request, reply, realm);
      }
      const holder = await holderOf(request, realm, session, cookies.bindBrowser(request, reply, realm));
      const views = await Promise.all(sections.map(async (section) => ({ title: section.title(holder.t), view: await section.render(holder) })));
      // Only a notice this server wrote (its MAC holds) is shown: a link cannot put words on the page.
      const query = formParams(request.query, ['notice', 'mac']);
      const notice = query.notice !== undefined && cookies.textMacMatches(query.notice, query.mac) ? query.notice.slice(0, MAX_NOTICE_LENGTH) : undefined;
      const page = accountOverviewPage(holder.t, {
        username: holder.username,
        notice,
        signInAgainAfter: holder.recentSignIn ? undefined : realm.settings.reauthentication_max_age,
        sections: views.map(({ title, view }) => ({ title, body: view.body })),
        scripts: [...new Set(views.flatMap(({ view }) => view.scripts ?? []))],
        formTargets: views.flatMap(({ view }) => view.formTargets ?? []),
      });
      return sendPage(reply, page.options, page.body);
    });

    for (const section of sections) section.routes?.(app, tools);
  };
}
