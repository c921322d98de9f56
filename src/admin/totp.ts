import type { FastifyPluginAsync } from 'fastify';
import { base32Of, enrolTotp, issuerLabel, otpauthUri } from '../authn/otp.js';
import type { AdminDeps } from './deps.js';
import { notFound } from './validate.js';

type Params = { Params: { realm: string; username: string } };

/**
 * `POST /admin/realms/{realm}/users/{username}/totp` (CONTRACT.md §5): a new TOTP secret for
 * the person, replacing any other, confirmed at once. The secret is answered this once and
 * stored encrypted; the admin hands it (or the URI, as a QR code) to the person.
 */
export function totpRoutes({ store, encryption }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.post<Params>('/users/:username/totp', async (request, reply) => {
      const user = await store.users.get(request.params.realm, request.params.username);
      if (!user) throw notFound('user');
      const secret = await enrolTotp(store, encryption, user.realm, user.id);
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ secret: base32Of(secret), otpauth_uri: otpauthUri(issuerLabel(request.realm), user.username, secret) });
    });
  };
}
