import { DELETED, type Operation } from '../operation.js';

/** A realm's groups, and people's groups. */
export const groupOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/groups', operationId: 'listGroups', tag: 'Roles and groups', summary: 'List the realm\'s groups',
    responses: { 200: { description: 'The groups, by name, each with its roles', schema: 'Group', list: true } },
  },
  {
    method: 'GET', path: '/admin/realms/:realm/groups/:group', operationId: 'getGroup', tag: 'Roles and groups', summary: 'Read a group',
    responses: { 200: { description: 'The group', schema: 'Group' } },
  },
  {
    method: 'PUT', path: '/admin/realms/:realm/groups/:group', operationId: 'putGroup', tag: 'Roles and groups', summary: 'Create a group or change it',
    description:
      'A field left out keeps its value (empty for a new group). `roles` replaces the group\'s roles; each must be a role of the realm ' +
      '(400 naming the missing ones, and nothing changes). Its members\' next tokens show the change.',
    body: { schema: 'GroupPut', example: { description: 'The accounting team', roles: ['invoice-approver'] } },
    responses: { 200: { description: 'The group, changed', schema: 'Group' }, 201: { description: 'The group, created', schema: 'Group' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/groups/:group', operationId: 'deleteGroup', tag: 'Roles and groups', summary: 'Delete a group',
    description: 'Its members leave it, and no longer hold the roles it gave them (unless they hold them otherwise).',
    responses: DELETED,
  },
  {
    method: 'PUT', path: '/admin/realms/:realm/users/:username/groups/:group', operationId: 'joinGroup', tag: 'Roles and groups', summary: 'Add a person to a group',
    description: 'The person holds the group\'s roles. Adding them again changes nothing.',
    responses: { 204: { description: 'The person is a member' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/users/:username/groups/:group', operationId: 'leaveGroup', tag: 'Roles and groups', summary: 'Remove a person from a group',
    description: '404 when the person is not a member.',
    responses: { 204: { description: 'The person is no longer a member' } },
  },
];
