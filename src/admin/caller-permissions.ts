import type { FastifyPluginAsync } from 'fastify';
import { decisionsIn } from './permissions.js';

type Params = { Params: { realm: string } };

/**
 * `GET /admin/realms/{realm}/permissions`: what the caller may do in the realm, operation by
 * operation of the OpenAPI document, with the reason of each refusal (CONTRACT.md §14). The
 * console shows only what its person may do from it.
 */
export function callerPermissionRoutes(): FastifyPluginAsync {
  return async (app) => {
    app.get<Params>('/permissions', async (request) => {
      const principal = request.adminPrincipal;
      const decisions = decisionsIn(principal.adminToken ? undefined : principal.roles, request.params.realm);
      return {
        realm: request.params.realm,
        operations: Object.fromEntries(
          Object.entries(decisions).map(([operationId, decision]) => [operationId, decision.allowed ? { allowed: true } : { allowed: false, reason: decision.reason }]),
        ),
      };
    });
  };
}
