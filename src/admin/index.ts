import type { FastifyPluginAsync } from 'fastify';
import { recordAdminChanges } from '../audit/admin-changes.js';
import { UnstorableTextError } from '../errors.js';
import { resolveRealmFromPath } from '../realms/resolve.js';
import { requireAdministrator } from './auth.js';
import { actorOf } from './caller.js';
import { callerPermissionRoutes } from './caller-permissions.js';
import { ensureAdminResource } from './admin-resource.js';
import { ensureCliClient } from './cli-client.js';
import { clientRoutes } from './clients.js';
import type { AdminDeps } from './deps.js';
import { eventRoutes } from './events.js';
import { groupRoutes } from './groups.js';
import { identityProviderRoutes } from './identity-providers.js';
import { initialAccessTokenRoutes } from './initial-access-tokens.js';
import { journeyRoutes } from './journeys.js';
import { keyRoutes } from './keys.js';
import { openApiRoutes } from './openapi/index.js';
import { realmDataRoutes } from './realm-data/routes.js';
import { realmRoutes } from './realms.js';
import { resourceRoutes } from './resources.js';
import { roleRoutes } from './roles.js';
import { scopeRoutes } from './scopes.js';
import { totpRoutes } from './totp.js';
import { trustedIssuerRoutes } from './trusted-issuers.js';
import { userSessionRoutes } from './user-sessions.js';
import { userRoutes } from './users.js';
import { userConsentRoutes } from './user-consents.js';
import { userCredentialRoutes } from './user-credentials.js';
import { userMailRoutes } from './user-mails.js';
import { webhookRoutes } from './webhooks.js';
import { textRoutes } from './texts.js';

/** The admin API (CONTRACT.md §5): JSON only, behind the admin token; its changes are audit events. */
export function adminApi(deps: AdminDeps & { adminTokenHash: Buffer }): FastifyPluginAsync {
  return async (app) => {
    await ensureAdminResource(deps.store.resources, deps.baseUrl);
    await ensureCliClient(deps.store.clients);
    requireAdministrator(app, { tokenHash: deps.adminTokenHash, callers: deps.store.adminCallers, realms: deps.store.realms, baseUrl: deps.baseUrl });
    // A name holding a NUL is invalid_request, as the database would answer, also where a
    // cache answers the lookup (a realm's scopes) and would otherwise say "not found".
    app.addHook('onRequest', async (request) => {
      if (Object.values((request.params ?? {}) as Record<string, unknown>).some((value) => typeof value === 'string' && value.includes('\0'))) {
        throw new UnstorableTextError('the path holds a NUL character');
      }
    });
    app.removeContentTypeParser('text/plain');
    recordAdminChanges(app, deps.audit, actorOf);
    await app.register(realmRoutes(deps));
    await app.register(realmDataRoutes(deps));
    await app.register(openApiRoutes(deps));
    await app.register(async (realmScope) => {
      resolveRealmFromPath(realmScope, deps.store.realms, deps.baseUrl, 'admin');
      await realmScope.register(clientRoutes(deps));
      await realmScope.register(userRoutes(deps));
      await realmScope.register(userSessionRoutes(deps));
      await realmScope.register(totpRoutes(deps));
      await realmScope.register(scopeRoutes(deps));
      await realmScope.register(keyRoutes(deps));
      await realmScope.register(initialAccessTokenRoutes(deps));
      await realmScope.register(trustedIssuerRoutes(deps));
      await realmScope.register(eventRoutes(deps));
      await realmScope.register(journeyRoutes(deps));
      await realmScope.register(identityProviderRoutes(deps));
      await realmScope.register(roleRoutes(deps));
      await realmScope.register(groupRoutes(deps));
      await realmScope.register(resourceRoutes(deps));
      await realmScope.register(callerPermissionRoutes());
      await realmScope.register(userMailRoutes(deps));
      await realmScope.register(userCredentialRoutes(deps));
      await realmScope.register(userConsentRoutes(deps));
      await realmScope.register(webhookRoutes(deps));
      await realmScope.register(textRoutes(deps));
    }, { prefix: '/realms/:realm' });
  };
}
