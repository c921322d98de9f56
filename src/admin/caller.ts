import type { FastifyRequest } from 'fastify';
import { maySee } from './admin-roles.js';

/** Who makes an admin call: the holder of `ADMIN_TOKEN`, or a `root` token's subject with its roles now. */
export type AdminPrincipal =
  | { readonly adminToken: true }
  | { readonly adminToken: false; readonly sub: string; readonly clientId: string; readonly roles: readonly string[]; readonly targetRoles: readonly string[] };

/** What an admin change's audit event names as its actor (CONTRACT.md §14). */
export type AdminActor = { admin_token: true } | { sub: string; client_id: string };

// Per-request state: who calls is known once the admin API's hook has read the token, and the
// route it guards reads it there.
declare module 'fastify' {
  interface FastifyRequest {
    adminPrincipal: AdminPrincipal;
  }
}

export function actorOf(request: FastifyRequest): AdminActor {
  const principal = request.adminPrincipal;
  return principal.adminToken ? { admin_token: true } : { sub: principal.sub, client_id: principal.clientId };
}

/** Whether `GET /admin/realms` lists the realm to this caller. */
export const maySeeRealm = (principal: AdminPrincipal, realm: string): boolean => principal.adminToken || maySee(principal.roles, realm);

/** The resource whose `root` access tokens the admin API accepts. */
export const adminResourceOf = (baseUrl: string): string => `${baseUrl}/admin`;
