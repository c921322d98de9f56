import { DELETED, type Operation } from '../operation.js';

/** A realm's people. */
export const userOperations: readonly Operation[] = [
  {
    method: 'POST', path: '/admin/realms/:realm/users', operationId: 'createUser', tag: 'Users', summary: 'Create a user',
    description: 'Claims are the person\'s OpenID Connect claims (`name`, `email`…); the server\'s own claims (`sub`, `iss`…) cannot be set. ' +
      'The password follows the realm\'s policy: at least `password_min_length` characters, not one of the most common passwords, ' +
      'not the username or email address (400 naming the reason).',
    body: { schema: 'UserCreate', example: { username: 'alice', password: 'correct horse battery', claims: { name: 'Alice', email: 'alice@example.com' } } },
    responses: { 201: { description: 'The user', schema: 'User' } },
    errors: [409],
  },
  {
    method: 'GET', path: '/admin/realms/:realm/users/:username', operationId: 'getUser', tag: 'Users', summary: 'Read a user',
    responses: { 200: { description: 'The user', schema: 'User' } },
  },
  {
    method: 'PATCH', path: '/admin/realms/:realm/users/:username', operationId: 'updateUser', tag: 'Users', summary: 'Change a user\'s password or claims',
    description: 'Only the fields sent change. `claims` merges into the person\'s claims: a claim sent replaces its value, a claim sent as `null` is removed. ' +
      'A new password follows the realm\'s policy, as at creation, and ends the person\'s sessions and grants.',
    body: { schema: 'UserPatch', example: { claims: { name: 'Alice Liddell' } } },
    responses: { 200: { description: 'The user', schema: 'User' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/users/:username', operationId: 'deleteUser', tag: 'Users', summary: 'Delete a user',
    description: 'Their sessions, consents and tokens go with them; their JWT access tokens are denied.',
    responses: DELETED,
  },
  {
    method: 'POST', path: '/admin/realms/:realm/users/:username/totp', operationId: 'enrolTotp', tag: 'Users', summary: 'Give a user a new TOTP secret',
    description: 'Replaces any other and is confirmed at once; the secret is answered this once (with `Cache-Control: no-store`) and stored encrypted.',
    responses: { 201: { description: 'The secret', schema: 'TotpEnrolment', headers: { 'Cache-Control': 'no-store' } } },
  },
];
