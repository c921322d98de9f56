import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditEvent, AuditEventType, AuditLog } from './audit-log.js';

type Fields = Record<string, unknown>;

/** What an admin call changed, read from its path parameters, its query, its body and its answer. */
interface Change {
  params: Readonly<Record<string, string | undefined>>;
  query: Fields;
  body: Fields;
  answer: Fields;
}

type Described = Pick<AuditEvent, 'clientId' | 'userId'> & { details?: Fields };

const names = (value: unknown): string[] => (value !== null && typeof value === 'object' ? Object.keys(value) : []);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Admin calls that change something (CONTRACT.md §5), by method and route below `/admin`: the
 * event each records once it has succeeded, and what the event says. Only names and ids are
 * taken from bodies and answers, never a value that could be a secret.
 */
const CHANGES: Readonly<Record<string, { type: AuditEventType; describe?: (change: Change) => Described }>> = {
  'POST /realms': { type: 'realm.created', describe: ({ body }) => ({ details: { settings: names(body.settings) } }) },
  'PATCH /realms/:realm': { type: 'realm.updated', describe: ({ body }) => ({ details: { settings: names(body.settings) } }) },
  'DELETE /realms/:realm': { type: 'realm.deleted' },
  'PUT /realms/:realm/import': { type: 'realm.imported', describe: ({ answer }) => ({ details: importCounts(answer) }) },
  // Not a change, but with `users=true` it reads every password hash of the realm.
  'GET /realms/:realm/export': { type: 'realm.exported', describe: ({ query }) => ({ details: { users: query.users === 'true' } }) },
  'POST /realms/:realm/clients': {
    type: 'client.created',
    describe: ({ answer }) => ({ clientId: text(answer.client_id), details: { client_type: answer.client_type, grant_types: answer.grant_types } }),
  },
  'PATCH /realms/:realm/clients/:client_id': {
    type: 'client.updated',
    // A client that now authenticates with a secret it never had is given one.
    describe: ({ body, answer }) => ({ details: { fields: names(body), ...('client_secret' in answer ? { secret_issued: true } : {}) } }),
  },
  'DELETE /realms/:realm/clients/:client_id': { type: 'client.deleted' },
  'POST /realms/:realm/clients/:client_id/secret': { type: 'client.secret_rotated' },
  'POST /realms/:realm/users': { type: 'user.created', describe: ({ answer }) => ({ userId: text(answer.sub), details: { username: answer.username } }) },
  'PATCH /realms/:realm/users/:username': { type: 'user.updated', describe: ({ body, answer }) => ({ userId: text(answer.sub), details: { fields: names(body) } }) },
  'DELETE /realms/:realm/users/:username': { type: 'user.deleted' },
  'POST /realms/:realm/users/:username/totp': { type: 'user.totp_enrolled' },
  'PUT /realms/:realm/scopes/:name': { type: 'scope.saved' },
  'DELETE /realms/:realm/scopes/:name': { type: 'scope.deleted' },
  'POST /realms/:realm/keys/rotate': {
    type: 'keys.rotated',
    describe: ({ answer }) => ({ details: { kids: Array.isArray(answer.keys) ? answer.keys.map((key: Fields) => key.kid) : [] } }),
  },
  'POST /realms/:realm/trusted-issuers': {
    type: 'trusted_issuer.created',
    describe: ({ answer }) => ({ details: { trusted_issuer_id: answer.id, kind: answer.kind, issuer: answer.issuer } }),
  },
  'PATCH /realms/:realm/trusted-issuers/:id': { type: 'trusted_issuer.updated', describe: ({ body }) => ({ details: { fields: names(body) } }) },
  'DELETE /realms/:realm/trusted-issuers/:id': { type: 'trusted_issuer.deleted' },
  'PUT /realms/:realm/journeys/:journey': { type: 'journey.saved' },
  'DELETE /realms/:realm/journeys/:journey': { type: 'journey.deleted' },
  'POST /realms/:realm/identity-providers': {
    type: 'identity_provider.created',
    describe: ({ answer }) => ({ details: { alias: answer.alias, issuer: answer.issuer } }),
  },
  'PATCH /realms/:realm/identity-providers/:alias': { type: 'identity_provider.updated', describe: ({ body }) => ({ details: { fields: names(body) } }) },
  'DELETE /realms/:realm/identity-providers/:alias': { type: 'identity_provider.deleted' },
  'PUT /realms/:realm/roles/:role': { type: 'role.saved' },
  'DELETE /realms/:realm/roles/:role': { type: 'role.deleted' },
  'PUT /realms/:realm/groups/:group': { type: 'group.saved', describe: ({ body }) => ({ details: { fields: names(body) } }) },
  'DELETE /realms/:realm/groups/:group': { type: 'group.deleted' },
  'PUT /realms/:realm/users/:username/roles/:role': { type: 'user.role_granted' },
  'DELETE /realms/:realm/users/:username/roles/:role': { type: 'user.role_revoked' },
  'PUT /realms/:realm/users/:username/groups/:group': { type: 'user.group_joined' },
  'DELETE /realms/:realm/users/:username/groups/:group': { type: 'user.group_left' },
  // A resource is named by a URI, in the body of a PUT and the query of a DELETE.
  'PUT /realms/:realm/resources': {
    type: 'resource.saved',
    describe: ({ body }) => ({ details: { identifier: text(body.identifier), fields: names(body).filter((name) => name !== 'identifier') } }),
  },
  'DELETE /realms/:realm/resources': { type: 'resource.deleted', describe: ({ query }) => ({ details: { identifier: text(query.identifier) } }) },
  'POST /realms/:realm/initial-access-tokens': { type: 'initial_access_token.created', describe: ({ answer }) => ({ details: { expires_in: answer.expires_in } }) },
  // The secret of the body is never read: only the webhook's name, its URL's origin and its events.
  'PUT /realms/:realm/webhooks/:webhook': {
    type: 'webhook.saved',
    describe: ({ params, answer }) => ({ details: { webhook: params.webhook, url_origin: originOf(answer.url), events: answer.events } }),
  },
  'DELETE /realms/:realm/webhooks/:webhook': { type: 'webhook.deleted', describe: ({ params }) => ({ details: { webhook: params.webhook } }) },
};

/** A URL's origin: its path or query may hold a credential of the receiver. */
function originOf(url: unknown): string | undefined {
  return typeof url === 'string' && URL.canParse(url) ? new URL(url).origin : undefined;
}

/** How many things an import created, changed and deleted, over all its sections (src/admin/realm-data/import.ts). */
function importCounts(answer: Fields): Fields {
  const sections = Object.values((answer.sections ?? {}) as Record<string, Record<string, unknown>>);
  const count = (what: string) => sections.reduce((sum, section) => sum + (Array.isArray(section[what]) ? section[what].length : 0), 0);
  return { realm_created: answer.realm_created, prune: answer.prune, created: count('created'), changed: count('changed'), deleted: count('deleted') };
}

/** The path parameters every event of a route carries. */
function fromParams(params: Change['params']): Described & { details: Fields } {
  return {
    clientId: params.client_id,
    details: {
      ...(params.username === undefined ? {} : { username: params.username }),
      ...(params.name === undefined ? {} : { scope: params.name }),
      ...(params.id === undefined ? {} : { trusted_issuer_id: params.id }),
      ...(params.journey === undefined ? {} : { journey: params.journey }),
      ...(params.alias === undefined ? {} : { alias: params.alias }),
      ...(params.role === undefined ? {} : { role: params.role }),
      ...(params.group === undefined ? {} : { group: params.group }),
    },
  };
}

function parsedAnswer(payload: unknown): Fields {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return {};
  try {
    return JSON.parse(payload) as Fields;
  } catch {
    return {};
  }
}

/**
 * Records the admin API's successful changes as audit events, each naming its actor
 * (CONTRACT.md §14), from one hook: the resource routes stay free of it. It runs as the answer is sent, so that the event is recorded
 * before the caller can ask for it.
 */
export function recordAdminChanges(app: FastifyInstance, audit: AuditLog, actorOf: (request: FastifyRequest) => Fields): void {
  app.addHook('onSend', async (request: FastifyRequest, reply, payload) => {
    if (reply.statusCode >= 300) return payload;
    const route = request.routeOptions.url?.slice(app.prefix.length);
    const change = CHANGES[`${request.method} ${route}`];
    if (!change) return payload;
    const params = (request.params ?? {}) as Change['params'];
    const body = (request.body !== null && typeof request.body === 'object' ? request.body : {}) as Fields;
    const query = (request.query !== null && typeof request.query === 'object' ? request.query : {}) as Fields;
    const common = fromParams(params);
    // The answer is parsed only for an event that reads it: an export's may hold a whole realm.
    let answer: Fields | undefined;
    const described = change.describe?.({ params, query, body, get answer() { return (answer ??= parsedAnswer(payload)); } }) ?? {};
    const realm = params.realm ?? text(body.name);
    if (realm === undefined) return payload;
    audit.record({
      realm,
      type: change.type,
      clientId: described.clientId ?? common.clientId,
      userId: described.userId,
      address: request.ip,
      details: { ...common.details, ...described.details, actor: actorOf(request) },
    });
    return payload;
  });
}
