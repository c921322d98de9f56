import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { OutboundFetcher } from '../http/outbound-fetch.js';
import type { ClientAuthenticator } from '../client-auth/authenticate.js';
import type { ClientJwks } from '../client-auth/client-jwks.js';
import { formParams } from '../http/form-params.js';
import type { RateLimits } from '../rate-limits/rate-limits.js';
import { BACKCHANNEL_FORM_PARAMETERS, validateBackchannelRequest } from '../requests/backchannel-request.js';
import type { Store } from '../store/index.js';
import { randomSecret, sha256 } from '../secrets.js';
import { sealPing } from '../outbox/ciba-ping.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import { sendCibaNotification } from './backchannel-notification.js';

const PATH = '/bc-authorize';

/**
 * The backchannel authentication endpoint of CIBA Core §7: the client authenticates and names
 * the person; the request is stored by the SHA-256 of its `auth_req_id`, which the client then
 * polls the token endpoint with (§7.3), while the person approves or denies at
 * `{issuer}/bc-approve`. A client in ping mode is told of the answer first (§10.2), one in push
 * mode receives its tokens or the error instead (§10.3, src/outbox/ciba-push.ts): its request keeps
 * the `auth_req_id` and `client_notification_token` sealed for the notification. A realm's
 * `ciba_notification_url` is told of each new request.
 */
export function backchannelAuthenticationEndpoint(deps: {
  store: Store;
  encryption: KeyEncryption;
  authenticator: ClientAuthenticator;
  clientJwks: ClientJwks;
  rateLimits: RateLimits;
  outbound: OutboundFetcher;
}): FastifyPluginAsync {
  const { store } = deps;
  const validationDeps = {
    users: store.users,
    signingKeys: store.signingKeys,
    spentAssertions: store.spentAssertions,
    clientJwks: deps.clientJwks,
  };
  return async (app) => {
    app.post(PATH, async (request, reply) => {
      const realm = request.realm;
      const client = await deps.authenticator.authenticate(request, PATH);
      await deps.rateLimits.client(request.realm, 'ciba', client.client_id);
      const form = formParams(request.body, BACKCHANNEL_FORM_PARAMETERS);
      const valid = await validateBackchannelRequest(validationDeps, realm, client, `${realm.issuer}${PATH}`, form);

      const authReqId = randomSecret();
      const id = randomUUID();
      const endpoint = client.backchannel_client_notification_endpoint;
      const notification =
        valid.notificationToken === undefined || endpoint === undefined
          ? undefined
          : {
              endpoint,
              sealed: sealPing(deps.encryption, realm.name, id, { auth_req_id: authReqId, client_notification_token: valid.notificationToken }),
              push: client.backchannel_token_delivery_mode === 'push',
            };
      const pending = await store.pendingAuthorizations.createBackchannel(sha256(authReqId), {
        id,
        notification,
        realm: realm.name,
        clientId: client.client_id,
        scope: valid.scope,
        userId: valid.user.id,
        bindingMessage: valid.bindingMessage,
        intervalSeconds: realm.settings.ciba_poll_interval,
        lifetimeSeconds: valid.expiresIn,
      });

      const notificationUrl = realm.settings.ciba_notification_url;
      if (notificationUrl !== null) {
        // Not awaited: the answer below does not wait for the receiver, nor depend on it.
        void sendCibaNotification(
          notificationUrl,
          {
            realm: realm.name,
            request_id: pending.id,
            client_id: client.client_id,
            client_name: client.client_name,
            scope: valid.scope.join(' '),
            binding_message: valid.bindingMessage ?? null,
            username: valid.user.username,
            approve_url: `${realm.issuer}/bc-approve`,
            expires_at: pending.expiresAt.toISOString(),
          },
          request.log,
          { outbound: deps.outbound },
        );
      }
      // CIBA Core §7.3: interval is for clients that poll (poll and ping modes); a push client never does.
      const interval = notification?.push ? {} : { interval: realm.settings.ciba_poll_interval };
      return reply.code(200).send({ auth_req_id: authReqId, expires_in: valid.expiresIn, ...interval });
    });
  };
}
