import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { randomSecret, sha256 } from '../crypto/hash.js';
import type { AdminDeps } from './index.js';
import { parseInput } from './validate.js';

type Params = { Params: { realm: string } };

const DAY = 24 * 3600;

export const InitialAccessTokenRequest = z.strictObject({
  expires_in: z.number().int().positive().max(30 * DAY).optional(),
});

/**
 * `POST /admin/realms/{realm}/initial-access-tokens` (CONTRACT.md §5): a bearer token that
 * lets one client register itself at `{issuer}/connect/register` (RFC 7591 §3; single use,
 * see src/store/initial-access-tokens.ts). Shown once; stored as SHA-256.
 */
export function initialAccessTokenRoutes({ store }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.post<Params>('/initial-access-tokens', async (request, reply) => {
      const { expires_in: lifetime = DAY } = parseInput(InitialAccessTokenRequest, request.body);
      const token = randomSecret();
      await store.initialAccessTokens.issue(request.realm.name, sha256(token), lifetime);
      return reply.code(201).send({ token, expires_in: lifetime });
    });
  };
}
