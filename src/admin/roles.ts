import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { MembershipChange } from '../store/memberships.js';
import type { AdminDeps } from './deps.js';
import { notFound, parseInput } from './validate.js';

type Params = { Params: { realm: string; role: string; username: string } };

/** A role's or group's name: it stands in paths and in tokens' claims as it is. */
export const ROLE_OR_GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const ROLE_OR_GROUP_NAME_RULE = 'must be 1 to 128 letters, digits, `.`, `_`, `:` or `-`, starting with a letter or digit';

export const roleName = z.string().regex(ROLE_OR_GROUP_NAME, ROLE_OR_GROUP_NAME_RULE);
export const RolePathSchema = z.strictObject({ role: roleName.describe('The role\'s name') });
export const RolePutSchema = z.strictObject({
  description: z.string().max(1000).optional().describe('What the role allows; kept when left out (empty for a new role)'),
});

/**
 * The answer to a change of a person's roles or groups: 204, or 404 naming what is missing
 * (the person, the role or group, or, for a removal, the person's holding it).
 */
export function checkMembershipChange(change: MembershipChange, target: 'role' | 'group'): void {
  if (change === 'no_person') throw notFound('user');
  if (change === 'no_target') throw notFound(target);
  if (change === 'absent') throw notFound(`${target} of this user`);
}

/**
 * `/admin/realms/{realm}/roles` (CONTRACT.md §10), and a person's own roles
 * (`…/users/{username}/roles/{role}`). Deleting a role takes it from every group and person.
 */
export function roleRoutes({ store }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<Params>('/roles', async (request) => store.roles.list(request.params.realm));

    app.get<Params>('/roles/:role', async (request) => {
      const role = await store.roles.get(request.params.realm, request.params.role);
      if (!role) throw notFound('role');
      return role;
    });

    app.put<Params>('/roles/:role', async (request, reply) => {
      const { role: name } = parseInput(RolePathSchema, { role: request.params.role });
      const { description } = parseInput(RolePutSchema, request.body);
      const { role, created } = await store.roles.put(request.params.realm, name, description);
      return reply.code(created ? 201 : 200).send(role);
    });

    app.delete<Params>('/roles/:role', async (request, reply) => {
      if (!(await store.roles.delete(request.params.realm, request.params.role))) throw notFound('role');
      return reply.code(204).send();
    });

    app.put<Params>('/users/:username/roles/:role', async (request, reply) => {
      const { realm, username, role } = request.params;
      checkMembershipChange(await store.memberships.grantRole(realm, username, role), 'role');
      return reply.code(204).send();
    });

    app.delete<Params>('/users/:username/roles/:role', async (request, reply) => {
      const { realm, username, role } = request.params;
      checkMembershipChange(await store.memberships.revokeRole(realm, username, role), 'role');
      return reply.code(204).send();
    });
  };
}
