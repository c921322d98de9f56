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
    method: 'PUT', path: '/admin/realms/:realm/scopes/:name', operationId: 'putScope', tag: 'Scopes', summary: 'Create a scope or change its description',
    body: { schema: 'ScopePut', example: { description: 'Read orders' } },
    responses: { 200: { description: 'The scope, changed', schema: 'Scope' }, 201: { description: 'The scope, created', schema: 'Scope' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/scopes/:name', operationId: 'deleteScope', tag: 'Scopes', summary: 'Delete a scope',
    description: 'A built-in scope, or one a client lists, cannot be deleted (409).',
    responses: DELETED,
    errors: [409],
  },
];
