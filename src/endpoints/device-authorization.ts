import type { FastifyPluginAsync } from 'fastify';
import type { ClientAuthenticator } from '../client-auth/authenticate.js';
import { DEVICE_CODE_GRANT } from '../records/client.js';
import { OAuthError } from '../errors.js';
import { formParams } from '../http/form-params.js';
import type { RateLimits } from '../rate-limits/rate-limits.js';
import { requestedScope } from '../records/scope.js';
import { formatUserCode, newUserCode } from '../requests/user-code.js';
import type { PendingAuthorizationStore } from '../store/pending-authorizations.js';
import { randomSecret, sha256 } from '../secrets.js';

/** A drawn user code may be in use; drawing again this many times makes a clash practically impossible. */
const USER_CODE_ATTEMPTS = 5;

/**
 * The device authorization endpoint (RFC 8628 §3.1, §3.2). A client that lists the device
 * grant (a public client by its client_id, a confidential one authenticated) gets a device
 * code to poll with (256 bits, stored as SHA-256) and a short user code for the person to
 * type at `{issuer}/device/user`.
 */
export function deviceAuthorizationEndpoint(deps: {
  authenticator: ClientAuthenticator;
  pendingAuthorizations: PendingAuthorizationStore;
  rateLimits: RateLimits;
}): FastifyPluginAsync {
  return async (app) => {
    app.post('/device/code', async (request) => {
      const realm = request.realm;
      const client = await deps.authenticator.authenticate(request, '/device/code');
      await deps.rateLimits.client(request.realm, 'device', client.client_id);
      if (!client.grant_types.includes(DEVICE_CODE_GRANT)) {
        throw new OAuthError('unauthorized_client', 'the client is not allowed the device authorization grant');
      }
      const scope = requestedScope(formParams(request.body, ['scope']).scope, client.scope);

      const deviceCode = randomSecret();
      const { device_code_lifetime: lifetime, device_poll_interval: interval } = realm.settings;
      for (let attempt = 0; attempt < USER_CODE_ATTEMPTS; attempt++) {
        const userCode = newUserCode();
        const created = await deps.pendingAuthorizations.createDevice(sha256(deviceCode), {
          realm: realm.name,
          clientId: client.client_id,
          scope,
          userCode,
          intervalSeconds: interval,
          lifetimeSeconds: lifetime,
        });
        if (!created) continue;
        const verificationUri = `${realm.issuer}/device/user`;
        return {
          device_code: deviceCode,
          user_code: formatUserCode(userCode),
          verification_uri: verificationUri,
          verification_uri_complete: `${verificationUri}?user_code=${formatUserCode(userCode)}`,
          expires_in: lifetime,
          interval,
        };
      }
      throw new OAuthError('temporarily_unavailable', 'no user code could be drawn; try again');
    });
  };
}
