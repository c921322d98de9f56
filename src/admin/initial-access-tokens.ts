import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { clientAuthorizationDetailsTypes } from '../records/authorization-details.js';
import { GRANT_TYPES } from '../records/client.js';
import { OAuthError } from '../errors.js';
import { SCOPE_TOKEN, namedBriefly, scopeNames } from '../records/scope.js';
import { randomSecret, sha256 } from '../secrets.js';
import type { AdminDeps } from './deps.js';
import { parseInput } from './validate.js';

type Params = { Params: { realm: string } };

const DAY = 24 * 3600;

export const InitialAccessTokenRequest = z.strictObject({
  expires_in: z.number().int().positive().max(30 * DAY).optional(),
  grant_types: z
    .array(z.enum(GRANT_TYPES))
    .refine((types) => new Set(types).size === types.length, 'grant types must not repeat')
    .optional()
    .describe("Grant types the registration may ask for beyond the realm's `registration_grant_types`"),
  scope: z
    .string()
    .max(4000)
    .refine((value) => value === '' || value.split(' ').every((name) => SCOPE_TOKEN.test(name)), 'must be scope names separated by single spaces')
    .optional()
    .describe("Space-separated scopes the registration may ask for beyond the realm's `registration_scopes`"),
  authorization_details_types: clientAuthorizationDetailsTypes
    .optional()
    .describe("Types of the realm's `authorization_details_types` (RFC 9396) the registered client may list; none otherwise"),
});

/**
 * `POST /admin/realms/{realm}/initial-access-tokens` (CONTRACT.md §5): a bearer token that
 * lets one client register itself at `{issuer}/connect/register` (RFC 7591 §3; single use,
 * see src/store/initial-access-tokens.ts). Shown once; stored as SHA-256. Its `grant_types`,
 * `scope` and `authorization_details_types` widen the realm's registration policy for that registration
 * (src/clients/registration-policy.ts).
 */
export function initialAccessTokenRoutes({ store }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.post<Params>('/initial-access-tokens', async (request, reply) => {
      const { expires_in: lifetime = DAY, grant_types: grantTypes = [], scope = '', authorization_details_types: types = [] } = parseInput(InitialAccessTokenRequest, request.body);
      const undefinedTypes = types.filter((type) => !Object.hasOwn(request.realm.settings.authorization_details_types, type));
      if (undefinedTypes.length > 0) throw new OAuthError('invalid_request', `authorization_details_types: not defined in this realm: ${namedBriefly(undefinedTypes)}`);
      const names = scopeNames(scope);
      const allowance =
        grantTypes.length > 0 || names.length > 0 || types.length > 0
          ? { grant_types: grantTypes, scope: names.join(' '), ...(types.length > 0 ? { authorization_details_types: types } : {}) }
          : undefined;
      const token = randomSecret();
      await store.initialAccessTokens.issue(request.realm.name, sha256(token), lifetime, allowance);
      return reply.code(201).send({ token, expires_in: lifetime });
    });
  };
}
