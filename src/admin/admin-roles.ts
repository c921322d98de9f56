/**
 * The `root` roles that make a caller an administrator (CONTRACT.md §14), and what each gives in
 * a realm. The rule of each operation is src/admin/permissions.ts's.
 */

export const ADMIN_ROLE = 'realmgate-admin';
export const VIEWER_ROLE = 'realmgate-viewer';
export const SERVER_ROLE_PREFIX = 'realmgate-';

/**
 * `read`: a viewer of the realm may; `change`: an admin of the realm may; `server`: only
 * `realmgate-admin` (realms themselves, and what reads every secret of a realm).
 */
export type Access = 'read' | 'change' | 'server';

/** What the caller's roles give in a realm. */
export function accessIn(roles: readonly string[], realm: string): Access | undefined {
  if (roles.includes(ADMIN_ROLE)) return 'server';
  if (roles.includes(`${ADMIN_ROLE}:${realm}`)) return 'change';
  if (roles.includes(VIEWER_ROLE) || roles.includes(`${VIEWER_ROLE}:${realm}`)) return 'read';
  return undefined;
}

/** Whether the roles give the caller anything at all: without, its token is not an admin's (401). */
export function isAdministrator(roles: readonly string[]): boolean {
  return roles.some((role) => role === ADMIN_ROLE || role === VIEWER_ROLE || role.startsWith(`${ADMIN_ROLE}:`) || role.startsWith(`${VIEWER_ROLE}:`));
}

/** Whether the roles let the caller see the realm (`GET /admin/realms` lists only those). */
export function maySee(roles: readonly string[], realm: string): boolean {
  return accessIn(roles, realm) !== undefined;
}
