import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { type PasswordHashing, hashPassword } from '../authn/password-hashing.js';
import { PASSWORD_MAX_LENGTH, type PasswordContext, checkPassword } from '../authn/password-policy.js';
import { USERNAME } from '../authn/username.js';
import { OAuthError } from '../errors.js';
import type { RealmSettings } from '../records/realm-settings.js';
import { type Memberships, NO_MEMBERSHIPS } from '../store/memberships.js';
import type { UserIdentity } from '../store/user-identities.js';
import { type User, isEmailTaken } from '../store/users.js';
import { actorOf } from './caller.js';
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
  .regex(USERNAME, 'must be 1 to 255 letters, digits or . _ @ + -');
/** Its length and content are the realm's password policy's (checkNewPassword). */
const password = z.string().max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`);
const claims = z
  .record(z.string().max(100), z.json())
  .superRefine((value, ctx) => {
    for (const name of Object.keys(value)) {
      if (RESERVED_CLAIMS.has(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'is set by the server' });
    }
    if (JSON.stringify(value).length > 16_384) ctx.addIssue({ code: 'custom', message: 'must be at most 16 KiB' });
  });

export const UserCreateSchema = z.strictObject({ username, password, claims: claims.optional() });
export const UserPatchSchema = z.strictObject({
  password: password.optional(),
  claims: claims.optional(),
  enabled: z.boolean().optional().describe('false: the person signs in nowhere, their sessions end and their grants are revoked; true: they may sign in again'),
});

export const DEFAULT_USER_LIMIT = 100;
export const MAX_USER_LIMIT = 1000;

/**
 * `next` of a page: the last username of the page (as the order compares it, ignoring case),
 * base64url-encoded. Callers pass it back as it is; what it holds is not theirs to read.
 */
const cursorOf = (user: User): string => Buffer.from(user.username.toLowerCase(), 'utf8').toString('base64url');
const cursor = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,1400}$/, 'is not the next value of a previous page')
  .transform((value) => Buffer.from(value, 'base64url').toString('utf8'))
  .refine((value) => USERNAME.test(value), 'is not the next value of a previous page');

export const UserListQuerySchema = z.strictObject({
  search: z.string().max(255, 'must be at most 255 characters').optional(),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(1, `must be 1 to ${MAX_USER_LIMIT}`).max(MAX_USER_LIMIT, `must be 1 to ${MAX_USER_LIMIT}`))
    .optional(),
  cursor: cursor.optional(),
});

/**
 * `identities`: the person's links to upstream providers, and `memberships`: their roles and
 * groups (CONTRACT.md §10), in the answers about one person.
 */
export function userView(user: User, identities?: readonly UserIdentity[], memberships?: Memberships) {
  return {
    username: user.username,
    sub: user.id,
    claims: user.claims,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
    enabled: user.enabled,
    ...(identities === undefined ? {} : { identities: identities.map(({ provider, subject }) => ({ provider, subject })) }),
    ...(memberships === undefined ? {} : { roles: [...memberships.roles], groups: [...memberships.groups], effective_roles: [...memberships.effectiveRoles] }),
  };
}

/** A password that the realm's policy refuses is 400 naming why, never repeating it. */
async function checkNewPassword(value: string, settings: RealmSettings, context: PasswordContext, hashing: PasswordHashing): Promise<string> {
  const problem = checkPassword(value, settings, context);
  if (problem) throw new OAuthError('invalid_request', `password: ${problem.description}`);
  return hashPassword(value, hashing);
}

/** An email address is one person's per realm, ignoring case (CONTRACT.md §7). */
const emailTaken = () => conflict('the email address belongs to another person of the realm');

const emailOf = (claims: Record<string, unknown> | undefined): string | undefined =>
  typeof claims?.email === 'string' ? claims.email : undefined;

/** `/admin/realms/{realm}/users`: passwords are stored as argon2id hashes only. */
export function userRoutes({ store, audit, passwordHashing }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    // Keyset paging in the order of usernames: `next` is passed back as `cursor` (CONTRACT.md §10).
    app.get<{ Params: { realm: string } }>('/users', async (request) => {
      const query = parseInput(UserListQuerySchema, { ...(request.query as object) });
      const limit = query.limit ?? DEFAULT_USER_LIMIT;
      const users = await store.users.list(request.realm.name, { search: query.search || undefined, after: query.cursor, limit: limit + 1 });
      const page = users.slice(0, limit);
      return { users: page.map((user) => userView(user)), next: users.length > limit ? cursorOf(page.at(-1)!) : null };
    });

    app.post<Params>('/users', async (request, reply) => {
      const input = parseInput(UserCreateSchema, request.body);
      const claims = (input.claims ?? {}) as Record<string, unknown>;
      const passwordHash = await checkNewPassword(input.password, request.realm.settings, { username: input.username, email: emailOf(claims) }, passwordHashing);
      const email = emailOf(claims);
      if (email !== undefined && (await store.users.getByEmail(request.params.realm, email))) throw emailTaken();
      const user = await store.users.create(request.params.realm, input.username, passwordHash, claims);
      if (!user) {
        if (email !== undefined && (await store.users.getByEmail(request.params.realm, email))) throw emailTaken();
        throw conflict('a user with this username exists in the realm');
      }
      return reply.code(201).send(userView(user, [], NO_MEMBERSHIPS));
    });

    app.get<Params>('/users/:username', async (request) => {
      const user = await store.users.get(request.params.realm, request.params.username);
      if (!user) throw notFound('user');
      return userView(user, await store.userIdentities.ofPerson(user.realm, user.id), await store.memberships.ofPerson(user.realm, user.id));
    });

    // A new password (CONTRACT.md §7), or a disable (§10), ends the person's sessions and revokes their grants (UserStore.change).
    app.patch<Params>('/users/:username', async (request) => {
      const input = parseInput(UserPatchSchema, request.body);
      let passwordHash: string | undefined;
      if (input.password !== undefined) {
        const current = await store.users.get(request.params.realm, request.params.username);
        if (!current) throw notFound('user');
        // A claim sent as null is removed (UserStore.update): the email the person will have.
        const claims = input.claims as Record<string, unknown> | undefined;
        const email = claims && Object.hasOwn(claims, 'email') ? emailOf(claims) : emailOf(current.claims);
        passwordHash = await checkNewPassword(input.password, request.realm.settings, { username: current.username, email }, passwordHashing);
      }
      const changed = await store.users
        .change(request.params.realm, request.params.username, {
          ...(passwordHash === undefined ? {} : { passwordHash }),
          ...(input.claims === undefined ? {} : { claims: input.claims as Record<string, unknown> }),
          ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
        })
        .catch((error: unknown) => {
          throw isEmailTaken(error) ? emailTaken() : error;
        });
      if (!changed) throw notFound('user');
      const { user } = changed;
      if (user.enabled !== changed.wasEnabled) {
        audit.record({ realm: user.realm, type: user.enabled ? 'user.enabled' : 'user.disabled', userId: user.id, address: request.ip, details: { username: user.username, actor: actorOf(request) } });
      }
      return userView(user, await store.userIdentities.ofPerson(user.realm, user.id), await store.memberships.ofPerson(user.realm, user.id));
    });

    app.delete<Params>('/users/:username', async (request, reply) => {
      if (!(await store.users.delete(request.params.realm, request.params.username))) throw notFound('user');
      return reply.code(204).send();
    });
  };
}
