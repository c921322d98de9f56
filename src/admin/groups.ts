import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { OAuthError } from '../errors.js';
import type { AdminDeps } from './deps.js';
import { ROLE_OR_GROUP_NAME, ROLE_OR_GROUP_NAME_RULE, checkMembershipChange, roleName } from './roles.js';
import { notFound, parseInput } from './validate.js';

type Params = { Params: { realm: string; group: string; username: string } };

export const GroupPathSchema = z.strictObject({ group: z.string().regex(ROLE_OR_GROUP_NAME, ROLE_OR_GROUP_NAME_RULE).describe('The group\'s name') });
export const GroupPutSchema = z.strictObject({
  description: z.string().max(1000).optional().describe('Who the group is; kept when left out (empty for a new group)'),
  roles: z
    .array(roleName)
    .max(1000)
    .refine((roles) => new Set(roles).size === roles.length, 'names a role twice')
    .optional()
    .describe('The roles its members hold, each a role of the realm; sent, they replace the group\'s roles; left out, they stay'),
});

/**
 * `/admin/realms/{realm}/groups` (CONTRACT.md §10): groups and the roles their members hold,
 * and a person's groups (`…/users/{username}/groups/{group}`).
 */
export function groupRoutes({ store }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<Params>('/groups', async (request) => store.groups.list(request.params.realm));

    app.get<Params>('/groups/:group', async (request) => {
      const group = await store.groups.get(request.params.realm, request.params.group);
      if (!group) throw notFound('group');
      return group;
    });

    app.put<Params>('/groups/:group', async (request, reply) => {
      const { group: name } = parseInput(GroupPathSchema, { group: request.params.group });
      const input = parseInput(GroupPutSchema, request.body);
      const saved = await store.groups.put(request.params.realm, name, input);
      if (saved.missingRoles !== undefined) {
        throw new OAuthError('invalid_request', `roles: no such role in the realm: ${saved.missingRoles.slice(0, 5).join(', ')}`);
      }
      return reply.code(saved.created ? 201 : 200).send(saved.group);
    });

    app.delete<Params>('/groups/:group', async (request, reply) => {
      if (!(await store.groups.delete(request.params.realm, request.params.group))) throw notFound('group');
      return reply.code(204).send();
    });

    app.put<Params>('/users/:username/groups/:group', async (request, reply) => {
      const { realm, username, group } = request.params;
      checkMembershipChange(await store.memberships.joinGroup(realm, username, group), 'group');
      return reply.code(204).send();
    });

    app.delete<Params>('/users/:username/groups/:group', async (request, reply) => {
      const { realm, username, group } = request.params;
      checkMembershipChange(await store.memberships.leaveGroup(realm, username, group), 'group');
      return reply.code(204).send();
    });
  };
}
