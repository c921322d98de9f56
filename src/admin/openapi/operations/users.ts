import { DEFAULT_USER_LIMIT, MAX_USER_LIMIT, UserListQuerySchema } from '../../users.js';
import { DELETED, type Operation } from '../operation.js';

/** A realm's people. */
export const userOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/users', operationId: 'listUsers', tag: 'Users', summary: 'List or search the realm\'s people',
    description: 'In the order of their usernames (ignoring case), a page at a time: pass `next` back as `cursor` for the page after. ' +
      'Unknown query parameters are refused (400).',
    query: {
      schema: UserListQuerySchema,
      parameters: {
        search: { description: 'People whose username, `email`, `name`, `given_name` or `family_name` claim holds this text, ignoring case', example: 'smith' },
        limit: { description: `People per page, 1 to ${MAX_USER_LIMIT}; ${DEFAULT_USER_LIMIT} when not given`, example: '50' },
        cursor: { description: 'The `next` value of the previous page' },
      },
    },
    responses: { 200: { description: 'A page of people', schema: 'UserPage' } },
  },
  {
    method: 'POST', path: '/admin/realms/:realm/users', operationId: 'createUser', tag: 'Users', summary: 'Create a user',
    description: 'Claims are the person\'s OpenID Connect claims (`name`, `email`…); the server\'s own claims (`sub`, `iss`…) cannot be set. ' +
      'The password follows the realm\'s policy: at least `password_min_length` characters, not one of the most common passwords, ' +
      'not the username or email address (400 naming the reason). An `email` claim that is another person\'s, ignoring case, is 409: an address is one person\'s per realm.',
    body: { schema: 'UserCreate', example: { username: 'alice', password: 'correct horse battery', claims: { name: 'Alice', email: 'alice@example.com' } } },
    responses: { 201: { description: 'The user', schema: 'User' } },
    errors: [409],
  },
  {
    method: 'GET', path: '/admin/realms/:realm/users/:username', operationId: 'getUser', tag: 'Users', summary: 'Read a user',
    responses: { 200: { description: 'The user', schema: 'User' } },
  },
  {
    method: 'PATCH', path: '/admin/realms/:realm/users/:username', operationId: 'updateUser', tag: 'Users', summary: 'Change a user\'s password, claims, or whether they may sign in',
    description: 'Only the fields sent change. `claims` merges into the person\'s claims: a claim sent replaces its value, a claim sent as `null` is removed. ' +
      'A new password follows the realm\'s policy, as at creation, and ends the person\'s sessions and grants. ' +
      '`enabled: false` refuses the person at every sign-in (the pages, the password grant, refresh tokens, device and CIBA approvals, assertions and ' +
      'token exchange naming them) and ends their sessions and grants in the same transaction; `enabled: true` lets them sign in again. ' +
      'A change of `enabled` is a `user.disabled` or `user.enabled` audit event. An `email` claim that is another person\'s, ignoring case, is 409.',
    body: { schema: 'UserPatch', example: { claims: { name: 'Alice Liddell' } } },
    responses: { 200: { description: 'The user', schema: 'User' } },
    errors: [409],
  },
  {
    method: 'GET', path: '/admin/realms/:realm/users/:username/sessions', operationId: 'listUserSessions', tag: 'Users', summary: 'List a user\'s sessions',
    description: 'The person\'s live sessions at the realm, by their public id (the `sid` of their ID tokens); the secret of a session\'s cookie is never shown.',
    responses: { 200: { description: 'The sessions', schema: 'UserSessions' } },
  },
  {
    method: 'DELETE', path: '/admin/realms/:realm/users/:username/sessions', operationId: 'endUserSessions', tag: 'Users', summary: 'Sign a user out everywhere',
    description: 'Ends every session of the person as a sign-out does: the tokens issued under them are revoked (their JWT access tokens denied), ' +
      'codes and device or CIBA approvals not yet collected go. Grants begun without a session (the password grant\'s, an assertion\'s) stay. ' +
      'A `user.sessions_ended` audit event.',
    responses: { 204: { description: 'Signed out' } },
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
