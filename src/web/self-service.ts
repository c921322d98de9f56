import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import { formParams } from '../http/form-params.js';
import { type AuthorizationFlow, TransactionGone } from './authorization-flow.js';
import type { BrowserCookies } from './browser-cookies.js';
import { sendFailurePage, wayBackOfTransaction } from './failure-page.js';
import type { Mailer } from '../mail/mailer.js';
import type { PasswordHashing } from '../authn/password-hashing.js';
import type { Messages } from '../pages/i18n/index.js';
import { messagesOf } from './locale.js';
import type { Page } from '../pages/layout.js';
import { sendPage } from './send-page.js';
import type { RequestRealm } from '../records/realm.js';
import { UntrustedRedirectError } from '../requests/authorization-request.js';
import type { Store } from '../store/index.js';
import type { ResumedTransaction } from './transaction.js';

/** What the pages by which people manage themselves share (CONTRACT.md §9): register, verify, reset. */
export interface SelfServicePageDeps {
  store: Store;
  flow: AuthorizationFlow;
  cookies: BrowserCookies;
  audit: AuditLog;
  /** None without `SMTP_URL`. */
  mailer: Mailer | undefined;
  /** argon2id's cost for new passwords (src/authn/password-hashing.ts). */
  passwordHashing: PasswordHashing;
}

export const sendSelfServicePage = (reply: FastifyReply, page: Page): FastifyReply => sendPage(reply, page.options, page.body);

/**
 * A page of a feature the realm has not turned on: 404, as a failure page (CONTRACT.md §16) with
 * its reference and, when it was reached from a sign-in (`transaction`), the way back to that
 * sign-in's application, in the sign-in's language.
 */
export async function notOffered(flow: AuthorizationFlow, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { transaction } = formParams(request.method === 'POST' ? request.body : request.query, ['transaction']);
  const resumed = await resumedSignIn(flow, request, transaction);
  const t = messagesOf(request);
  const page = { title: t.errors.notAvailable, message: t.errors.notAvailableMessage, status: 404, error: 'not_offered' };
  return sendFailurePage(request, reply, page, wayBackOfTransaction(request, resumed));
}

/** The sign-in a page was reached from, while it lasts in this browser; resuming it makes the page speak its language. */
async function resumedSignIn(flow: AuthorizationFlow, request: FastifyRequest, transaction: string | undefined): Promise<ResumedTransaction | undefined> {
  if (transaction === undefined) return undefined;
  try {
    return await flow.resume(request, request.realm, transaction);
  } catch (error) {
    if (!(error instanceof TransactionGone || error instanceof UntrustedRedirectError)) throw error;
    return undefined;
  }
}

/**
 * A page reached from a sign-in (its transaction carried along) that does not continue it
 * (a password reset) speaks the sign-in's language, `ui_locales` included, while the sign-in
 * lasts in this browser; otherwise the page's own. The sign-in's state matters to nothing else.
 */
export async function speakLikeSignIn(flow: AuthorizationFlow, request: FastifyRequest, transaction: string | undefined): Promise<void> {
  await resumedSignIn(flow, request, transaction);
}

/** The CSRF token of a form about `subject`, the browser bound first when it is not (a link from a mail). */
export function formToken(cookies: BrowserCookies, request: FastifyRequest, reply: FastifyReply, subject: string): string {
  return cookies.csrfToken(cookies.bindBrowser(request, reply, request.realm), subject);
}

/** The link to the account page, which signs the person in first; it reads "Go to your account" unless told otherwise. */
export const accountLink = (t: Messages, realm: RequestRealm, text = t.actions.goToAccount) => ({ href: `${realm.issuer}/account`, text });
