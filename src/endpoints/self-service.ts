import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizationFlow } from '../authn/authorization-flow.js';
import type { BrowserCookies } from '../authn/browser.js';
import type { Mailer } from '../mail/mailer.js';
import type { Page } from '../pages/layout.js';
import { sendPage } from '../pages/layout.js';
import { donePage } from '../pages/self-service/done.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { Store } from '../store/index.js';

/** What the pages by which people manage themselves share (CONTRACT.md §9): register, verify, reset. */
export interface SelfServicePageDeps {
  store: Store;
  flow: AuthorizationFlow;
  cookies: BrowserCookies;
  /** None without `SMTP_URL`. */
  mailer: Mailer | undefined;
}

export const sendSelfServicePage = (reply: FastifyReply, page: Page): FastifyReply => sendPage(reply, page.options, page.body);

/** A page of a feature the realm has not turned on: 404, as a page that does not exist. */
export function notOffered(reply: FastifyReply, realm: RequestRealm): FastifyReply {
  return sendSelfServicePage(reply, donePage({ realm: realm.name, title: 'Not available', message: 'This page is not available.', failed: true, status: 404 }));
}

/** The CSRF token of a form about `subject`, the browser bound first when it is not (a link from a mail). */
export function formToken(cookies: BrowserCookies, request: FastifyRequest, reply: FastifyReply, subject: string): string {
  return cookies.csrfToken(cookies.bindBrowser(request, reply, request.realm), subject);
}

/** The link to the account page, which signs the person in first. */
export const accountLink = (realm: RequestRealm, text = 'Go to your account') => ({ href: `${realm.issuer}/account`, text });
