import { DELETED, type Operation } from '../operation.js';

/** A realm's roles, and the roles people hold themselves. */
export const roleOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/roles', operationId: 'listRoles', tag: 'Roles and groups', summary: 'List the realm\'s roles',
    responses: { 200: { description: 'The roles, by name', schema: 'Role', list: true } },
  },
  {
    method: 'GET', path: '/admin/realms/:realm/roles/:role', operationId: 'getRole', tag: 'Roles and groups', summary: 'Read a role',
    responses: { 200: { description: 'The role', schema: 'Role' } },
  },
  {
    method: 'PUT', path: '/admin/realms/:realm/roles/:role', operationId: 'putRole', tag: 'Roles and groups', summary: 'Create a role or change its description',
    body: { schema: 'RolePut', example: { description: 'Approves invoices' } },
    responses: { 200: { description: 'The role, changed', schema: 'Role' }, 201: { description: 'The role, created', schema: 'Role' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/roles/:role', operationId: 'deleteRole', tag: 'Roles and groups', summary: 'Delete a role',
    description: 'As in Keycloak, the role is taken from every group and every person holding it, at once; their next tokens no longer carry it.',
    responses: DELETED,
  },
  {
    method: 'PUT', path: '/admin/realms/:realm/users/:username/roles/:role', operationId: 'grantRole', tag: 'Roles and groups', summary: 'Give a person a role',
    description: 'The person holds the role themselves, beside the roles of their groups. Giving it again changes nothing. The person\'s next token shows it.',
    responses: { 204: { description: 'The person holds the role' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/users/:username/roles/:role', operationId: 'revokeRole', tag: 'Roles and groups', summary: 'Take a role from a person',
    description: 'Only the role they hold themselves: a group of theirs that gives it still does. 404 when they do not hold it themselves.',
    responses: { 204: { description: 'The person no longer holds the role themselves' } },
  },
];
