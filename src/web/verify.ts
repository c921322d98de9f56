import type { FastifyPluginAsync } from 'fastify';
import { confirmEmail } from '../authn/self-service/verification.js';
import { formParams } from '../http/form-params.js';
import { localeOf, messagesOf } from './locale.js';
import { donePage } from '../pages/self-service/done.js';
import { GET_ONLY } from './page-routes.js';
import { type SelfServicePageDeps, accountLink, sendSelfServicePage } from './self-service.js';

/**
 * `{issuer}/verify?ticket=…` (CONTRACT.md §9): the link of the mail that confirms a person's
 * email address. Opening it uses the ticket: `email_verified` becomes true, and a sign-in that
 * waited for it goes on when the person continues there. A used or expired link says so.
 */
export function verifyEndpoint(deps: Pick<SelfServicePageDeps, 'store' | 'mailer' | 'audit'>): FastifyPluginAsync {
  return async (app) => {
    app.get('/verify', GET_ONLY, async (request, reply) => {
      const realm = request.realm;
      const { ticket } = formParams(request.query, ['ticket']);
      const requester = { address: request.ip, audit: deps.audit, locale: localeOf(request) };
      const confirmed = ticket === undefined ? undefined : await confirmEmail(deps, realm, ticket, requester);
      const t = messagesOf(request);
      const page = confirmed
        ? donePage(t, { title: t.verify.confirmedTitle, message: t.verify.confirmed, next: accountLink(t, realm) })
        : donePage(t, { title: t.verify.linkGoneTitle, message: t.verify.linkGone, failed: true, next: accountLink(t, realm, t.actions.signIn) });
      return sendSelfServicePage(reply, page);
    });
  };
}
