import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../errors.js';
import type { AdminCallerStore } from '../store/admin-callers.js';
import type { RealmStore } from '../store/realms.js';
import { matchesHash, sha256 } from '../secrets.js';
import { type AdminPrincipal, adminResourceOf } from './caller.js';
import { type Call, checkEveryOperationHasARule, decide, decideRealm, isAdministrator, operationOf, targetOf } from './permissions.js';

const ADMIN_TOKEN_PRINCIPAL: AdminPrincipal = Object.freeze({ adminToken: true });

const fields = (value: unknown): Readonly<Record<string, unknown>> => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {});

/**
 * Every admin call carries `Authorization: Bearer` with `ADMIN_TOKEN` (CONTRACT.md §5), or an
 * access token of `root` for the admin resource whose subject holds a `realmgate-*` role (§14):
 * anything else is 401. The call is then judged by src/admin/permissions.ts: 403 when the
 * subject's roles do not allow it. One statement reads the token, its subject's roles and those
 * of what the call names, so a revocation, a disable or a lost role counts at the next call.
 */
export function requireAdministrator(
  app: FastifyInstance,
  deps: { tokenHash: Buffer; callers: AdminCallerStore; realms: Pick<RealmStore, 'get'>; baseUrl: string },
): void {
  checkEveryOperationHasARule();
  const adminResource = adminResourceOf(deps.baseUrl);
  app.decorateRequest('adminPrincipal', null as unknown as { adminToken: true });
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    const match = header ? /^Bearer ([\x21-\x7E]+)$/i.exec(header) : null;
    const token = match?.[1];
    if (token && matchesHash(token, deps.tokenHash)) {
      request.adminPrincipal = ADMIN_TOKEN_PRINCIPAL;
      return;
    }
    const params = fields(request.params) as Call['params'];
    // A NUL is refused as invalid_request once the caller is known (src/admin/index.ts); the database cannot hold it.
    const named = Object.values(params).some((value) => value?.includes('\0')) ? {} : targetOf({ params, query: {}, body: {} });
    const caller = token ? await deps.callers.find(sha256(token), adminResource, named) : undefined;
    if (caller && isAdministrator(caller.roles)) {
      request.adminPrincipal = { adminToken: false, ...caller };
      const decision = decideRealm(caller.roles, params);
      if (!decision.allowed) throw new OAuthError('forbidden', decision.reason);
      return;
    }
    throw new OAuthError('invalid_token', header ? 'the admin token is not valid' : 'an admin token is required', {
      headers: { 'www-authenticate': header ? 'Bearer realm="admin", error="invalid_token"' : 'Bearer realm="admin"' },
    });
  });
  app.addHook('preHandler', async (request) => {
    const principal = request.adminPrincipal;
    if (principal.adminToken) return;
    const operation = operationOf(request.method, request.routeOptions.url);
    // Not an operation of the document: the document itself, which any administrator may read.
    if (!operation) return;
    const params = fields(request.params) as Call['params'];
    const call: Call = { params, query: fields(request.query), body: fields(request.body) };
    if (operation.rule.createsRealm && params.realm !== undefined) call.realmExists = (await deps.realms.get(params.realm)) !== undefined;
    const decision = decide(operation, principal.roles, call, principal.targetRoles);
    if (!decision.allowed) throw new OAuthError('forbidden', decision.reason);
  });
}
