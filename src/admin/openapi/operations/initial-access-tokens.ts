import type { Operation } from '../operation.js';

/** Initial access tokens for dynamic client registration. */
export const initialAccessTokenOperations: readonly Operation[] = [
  {
    method: 'POST', path: '/admin/realms/:realm/initial-access-tokens', operationId: 'createInitialAccessToken', tag: 'Registration', summary: 'Issue an initial access token',
    description: 'A bearer token that lets one client register itself at `{issuer}/connect/register`; `expires_in` defaults to 86400 seconds (one day), at most 30 days. `grant_types` and `scope` widen the realm\'s registration policy (`registration_grant_types`, `registration_scopes`) for the one registration made with it, and for that client\'s later updates; the password, CIBA, token exchange and assertion grants are allowed only this way.',
    body: { schema: 'InitialAccessTokenRequest', example: { expires_in: 3600, grant_types: ['client_credentials'], scope: 'orders:read' } },
    responses: { 201: { description: 'The token, shown this once', schema: 'InitialAccessToken' } },
  },
];
