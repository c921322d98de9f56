import type { Operation } from '../operation.js';

/** What the caller may do (CONTRACT.md §14). */
export const permissionOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/permissions', operationId: 'getRealmPermissions', tag: 'Realms', summary: 'What the caller may do in the realm',
    description: 'Each operation of this document, judged for the caller\'s roles as a call naming nothing but the realm: allowed, or refused with the reason a call would get. A call may still be refused for what it names (a person or group holding realmgate-* roles).',
    responses: { 200: { description: 'The decisions, by operationId', schema: 'RealmPermissions' } },
  },
];
