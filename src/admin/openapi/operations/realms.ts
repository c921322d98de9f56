import { DELETED, MERGES, type Operation } from '../operation.js';

/** Realms: list, create, read, change settings, delete. */
export const realmOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms', operationId: 'listRealms', tag: 'Realms', summary: 'List the realms',
    responses: { 200: { description: 'Every realm, root included', schema: 'Realm', list: true } },
  },
  {
    method: 'POST', path: '/admin/realms', operationId: 'createRealm', tag: 'Realms', summary: 'Create a realm',
    description: 'Creates the realm with its signing keys and the built-in scopes; settings not given take their defaults.',
    body: { schema: 'RealmCreate', example: { name: 'acme', settings: { access_token_lifetime: 900 } } },
    responses: { 201: { description: 'The realm', schema: 'Realm' } },
    errors: [409],
  },
  {
    method: 'GET', path: '/admin/realms/:realm', operationId: 'getRealm', tag: 'Realms', summary: 'Read a realm',
    responses: { 200: { description: 'The realm', schema: 'Realm' } },
  },
  {
    method: 'PATCH', path: '/admin/realms/:realm', operationId: 'updateRealm', tag: 'Realms', summary: 'Change a realm\'s settings',
    description: `${MERGES} A setting set to its default stays set.`,
    body: { schema: 'RealmPatch', example: { settings: { require_pkce: true } } },
    responses: { 200: { description: 'The realm', schema: 'Realm' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm', operationId: 'deleteRealm', tag: 'Realms', summary: 'Delete a realm and everything in it',
    description: 'The root realm cannot be deleted (409).',
    responses: DELETED,
    errors: [409],
  },
];
