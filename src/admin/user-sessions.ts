import type { FastifyPluginAsync } from 'fastify';
import type { SessionActivity } from '../store/sessions.js';
import { actorOf } from './caller.js';
import type { AdminDeps } from './deps.js';
import { notFound } from './validate.js';

type Params = { Params: { realm: string; username: string } };

/** A session as the admin API shows it: its public id, never its cookie's secret. */
export function sessionView({ session, lastSeenAt, clients }: SessionActivity) {
  return {
    id: session.sid,
    created_at: session.authTime.toISOString(),
    last_seen_at: lastSeenAt.toISOString(),
    expires_at: session.expiresAt.toISOString(),
    journey: session.journey,
    acr: session.acr,
    amr: [...session.amr],
    nodes: [...session.nodes],
    clients: [...clients],
  };
}

/**
 * `/admin/realms/{realm}/users/{username}/sessions` (CONTRACT.md §10): the person's live
 * sessions, and signing them out everywhere, as each sign-out does (SessionStore.endAllForUser):
 * the tokens issued under the sessions are revoked, their codes and approvals not yet collected
 * go. Grants begun without a session (the password grant's, an assertion's) stay.
 */
export function userSessionRoutes({ store, audit }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<Params>('/users/:username/sessions', async (request) => {
      const user = await store.users.get(request.params.realm, request.params.username);
      if (!user) throw notFound('user');
      return { sessions: (await store.sessions.activityOfUser(user.realm, user.id)).map(sessionView) };
    });

    app.delete<Params>('/users/:username/sessions', async (request, reply) => {
      const user = await store.users.get(request.params.realm, request.params.username);
      if (!user) throw notFound('user');
      const ended = await store.sessions.endAllForUser(user.realm, user.id);
      audit.record({ realm: user.realm, type: 'user.sessions_ended', userId: user.id, address: request.ip, details: { username: user.username, sessions: ended, actor: actorOf(request) } });
      return reply.code(204).send();
    });
  };
}
