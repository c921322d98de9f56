import { DELETED, type Operation } from '../operation.js';

/** A realm's scopes. */
export const scopeOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/scopes', operationId: 'listScopes', tag: 'Scopes', summary: 'List the realm\'s scopes',
    responses: { 200: { description: 'The scopes, by name', schema: 'Scope', list: true } },
  },
  {
    method: 'GET', path: '/admin/realms/:realm/scopes/:name', operationId: 'getScope', tag: 'Scopes', summary: 'Read a scope',
    responses: { 200: { description: 'The scope', schema: 'Scope' } },
  },
  {
    method: 'PUT', path: '/admin/realms/:realm/scopes/:name', operationId: 'putScope', tag: 'Scopes', summary: 'Create a scope or change it',
    description:
      'A token whose scope holds this scope carries the claims it maps, about the token\'s person, where each one\'s `tokens` say: ' +
      'the ID token, JWT access tokens, the UserInfo answer, the introspection answer (opaque access tokens show them there). ' +
      '`claims` sent replace the stored ones; left out, they stay. The server\'s own claims (`sub`, `iss`, `aud`, `exp`, `scope`, `client_id`, `cnf`…) cannot be mapped.',
    body: {
      schema: 'ScopePut',
      example: { description: 'Read orders', claims: [{ name: 'roles', source: 'roles', tokens: ['access_token', 'introspection'] }] },
    },
    responses: { 200: { description: 'The scope, changed', schema: 'Scope' }, 201: { description: 'The scope, created', schema: 'Scope' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/scopes/:name', operationId: 'deleteScope', tag: 'Scopes', summary: 'Delete a scope',
    description: 'A built-in scope, or one a client lists, cannot be deleted (409).',
    responses: DELETED,
    errors: [409],
  },
];
