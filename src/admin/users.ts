import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { hashPassword } from '../authn/password-hashing.js';
import type { User } from '../store/users.js';
import type { AdminDeps } from './deps.js';
import { conflict, notFound, parseInput } from './validate.js';

type Params = { Params: { realm: string; username: string } };

/** Claims the server sets itself; a user record cannot carry them. */
const RESERVED_CLAIMS = new Set([
  'iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti', 'auth_time', 'nonce', 'acr', 'amr', 'azp',
  'at_hash', 'c_hash', 'sid', 'cnf', 'act', 'may_act', 'scope', 'client_id', 'username', 'realm',
]);

const username = z
  .string()
  .regex(/^[\p{L}\p{N}._@+-]{1,255}$/u, 'must be 1 to 255 letters, digits or . _ @ + -');
const password = z.string().min(8, 'must be at least 8 characters').max(1024, 'must be at most 1024 characters');
const claims = z
  .record(z.string().max(100), z.json())
  .superRefine((value, ctx) => {
    for (const name of Object.keys(value)) {
      if (RESERVED_CLAIMS.has(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'is set by the server' });
    }
    if (JSON.stringify(value).length > 16_384) ctx.addIssue({ code: 'custom', message: 'must be at most 16 KiB' });
  });

export const UserCreateSchema = z.strictObject({ username, password, claims: claims.optional() });
export const UserPatchSchema = z.strictObject({ password: password.optional(), claims: claims.optional() });

export function userView(user: User) {
  return {
    username: user.username,
    sub: user.id,
    claims: user.claims,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}

/** `/admin/realms/{realm}/users`: passwords are stored as argon2id hashes only. */
export function userRoutes({ store }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.post<Params>('/users', async (request, reply) => {
      const input = parseInput(UserCreateSchema, request.body);
      const user = await store.users.create(
        request.params.realm,
        input.username,
        await hashPassword(input.password),
        (input.claims ?? {}) as Record<string, unknown>,
      );
      if (!user) throw conflict('a user with this username exists in the realm');
      return reply.code(201).send(userView(user));
    });

    app.get<Params>('/users/:username', async (request) => {
      const user = await store.users.get(request.params.realm, request.params.username);
      if (!user) throw notFound('user');
      return userView(user);
    });

    // A new password ends the person's sessions and revokes their grants (UserStore.update, CONTRACT.md §7).
    app.patch<Params>('/users/:username', async (request) => {
      const input = parseInput(UserPatchSchema, request.body);
      const user = await store.users.update(request.params.realm, request.params.username, {
        ...(input.password === undefined ? {} : { passwordHash: await hashPassword(input.password) }),
        ...(input.claims === undefined ? {} : { claims: input.claims as Record<string, unknown> }),
      });
      if (!user) throw notFound('user');
      return userView(user);
    });

    app.delete<Params>('/users/:username', async (request, reply) => {
      if (!(await store.users.delete(request.params.realm, request.params.username))) throw notFound('user');
      return reply.code(204).send();
    });
  };
}
