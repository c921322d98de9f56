import type { FastifyPluginAsync } from 'fastify';
import { confirmEmail } from '../authn/self-service/verification.js';
import { formParams } from '../http/form-params.js';
import { donePage } from '../pages/self-service/done.js';
import { GET_ONLY } from './page-routes.js';
import { type SelfServicePageDeps, accountLink, sendSelfServicePage } from './self-service.js';

/**
 * `{issuer}/verify?ticket=…` (CONTRACT.md §9): the link of the mail that confirms a person's
 * email address. Opening it uses the ticket: `email_verified` becomes true, and a sign-in that
 * waited for it goes on when the person continues there. A used or expired link says so.
 */
export function verifyEndpoint(deps: Pick<SelfServicePageDeps, 'store' | 'mailer'>): FastifyPluginAsync {
  return async (app) => {
    app.get('/verify', GET_ONLY, async (request, reply) => {
      const realm = request.realm;
      const { ticket } = formParams(request.query, ['ticket']);
      const confirmed = ticket === undefined ? undefined : await confirmEmail(deps, realm, ticket, { address: request.ip, audit: app.audit });
      const page = confirmed
        ? donePage({
            realm: realm.name,
            title: 'Email address confirmed',
            message: 'Your email address is confirmed. If you were signing in, return to that page and continue.',
            next: accountLink(realm),
          })
        : donePage({
            realm: realm.name,
            title: 'Link not valid',
            message: 'This link does not work: it was used already, or it expired. Sign in to have a new mail sent.',
            failed: true,
            next: accountLink(realm, 'Sign in'),
          });
      return sendSelfServicePage(reply, page);
    });
  };
}
