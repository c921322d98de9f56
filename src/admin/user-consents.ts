import type { FastifyPluginAsync } from 'fastify';
import type { ConsentedClient } from '../store/consents.js';
import { actorOf } from './caller.js';
import type { AdminDeps } from './deps.js';
import { notFound } from './validate.js';

type Params = { Params: { realm: string; username: string } };
type ConsentParams = { Params: { realm: string; username: string; client_id: string } };

export function consentView(consent: ConsentedClient) {
  return {
    client_id: consent.clientId,
    client_name: consent.clientName ?? null,
    scope: consent.scope.join(' '),
    granted_at: consent.grantedAt.toISOString(),
  };
}

/**
 * `GET /admin/realms/{realm}/users/{username}/consents` and `DELETE …/consents/{client_id}`
 * (CONTRACT.md §16): what the person allowed each client, and withdrawing it as the account page
 * does (ConsentStore.revoke): in one transaction the consent goes, the person's tokens for the
 * client are revoked (their JWT access tokens denied on every instance), codes and approvals not
 * yet collected end. The next authorization asks for consent again.
 */
export function userConsentRoutes({ store, audit }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<Params>('/users/:username/consents', async (request) => {
      const user = await store.users.get(request.params.realm, request.params.username);
      if (!user) throw notFound('user');
      return { consents: (await store.consents.listForUser(user.realm, user.id)).map(consentView) };
    });

    app.delete<ConsentParams>('/users/:username/consents/:client_id', async (request, reply) => {
      const user = await store.users.get(request.params.realm, request.params.username);
      if (!user) throw notFound('user');
      if (!(await store.consents.revoke(user.realm, user.id, request.params.client_id))) throw notFound('consent of the person for this client');
      audit.record({
        realm: user.realm, type: 'consent.revoked', clientId: request.params.client_id, userId: user.id, address: request.ip,
        details: { username: user.username, via: 'admin', actor: actorOf(request) },
      });
      return reply.code(204).send();
    });
  };
}
