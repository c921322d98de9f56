import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { AUDIT_EVENT_TYPES } from '../audit/audit-log.js';
import { OAuthError } from '../errors.js';
import type { AuditEventCursor, StoredAuditEvent } from '../store/audit-events.js';
import type { AdminActor } from './caller.js';
import type { AdminDeps } from './deps.js';

type Params = { Params: { realm: string } };

export const DEFAULT_EVENT_LIMIT = 100;
export const MAX_EVENT_LIMIT = 1000;

const instant = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 instant, e.g. 2026-01-31T12:00:00Z' })
  .transform((value) => new Date(value));
const name = z.string().min(1).max(1000);

/** `type=a&type=b` and `type=a,b` alike. */
const types = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => [value].flat().flatMap((item) => item.split(',')).map((item) => item.trim()).filter(Boolean))
  .pipe(z.array(z.enum(AUDIT_EVENT_TYPES, { error: 'is not an audit event type' })).min(1, 'names no event type'));

/** `next` of a page is `{milliseconds}-{id}` of its last event; callers pass it back as it is. */
const CURSOR = /^(\d{1,15})-(\d{1,18})$/;
const cursor = z
  .string()
  .regex(CURSOR, 'is not the next value of a previous page')
  .transform((value): AuditEventCursor => {
    const [, ms, id] = CURSOR.exec(value)!;
    return { occurredAt: new Date(Number(ms)), id: id! };
  });
const cursorOf = (event: StoredAuditEvent): string => `${event.occurredAt.getTime()}-${event.id}`;

const limit = z
  .string()
  .regex(/^\d{1,4}$/, 'must be a whole number')
  .transform(Number)
  .pipe(z.number().min(1).max(MAX_EVENT_LIMIT));

export const EventQuerySchema = z
  .strictObject({
    type: types.optional(),
    client_id: name.optional(),
    user_id: name.optional(),
    username: name.optional(),
    since: instant.optional(),
    until: instant.optional(),
    limit: limit.optional(),
    before: cursor.optional(),
  })
  .refine((query) => !query.since || !query.until || query.since < query.until, { message: 'must be before until', path: ['since'] });

/** The query checked like a body (src/admin/validate.ts), its problems named by parameter. */
function parseQuery(input: unknown): z.output<typeof EventQuerySchema> {
  const result = EventQuerySchema.safeParse({ ...(input as object) });
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${String(issue.path[0] ?? 'query')}: ${issue.message}`);
  throw new OAuthError('invalid_request', problems.join('; '));
}

/**
 * An admin change's actor (CONTRACT.md §14) is written among its details (src/audit/admin-changes.ts)
 * and answered beside them.
 */
export function eventView(event: StoredAuditEvent) {
  const { actor, ...details } = event.details;
  return {
    id: event.id,
    occurred_at: event.occurredAt.toISOString(),
    realm: event.realm,
    type: event.type,
    client_id: event.clientId ?? null,
    user_id: event.userId ?? null,
    address: event.address ?? null,
    details,
    ...(actor === undefined ? {} : { actor: actor as AdminActor }),
  };
}

/**
 * `GET /admin/realms/{realm}/events`: the realm's audit events, newest first, filtered by
 * type (repeated or comma-separated), client, person (`user_id` or `username`) and time
 * (`since` inclusive, `until` exclusive), a page of `limit` at a time; `next` is passed back
 * as `before` for the page after. Unknown parameters are refused, so that a misspelt filter
 * does not widen the answer.
 */
export function eventRoutes({ store, audit }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<Params>('/events', async (request) => {
      const query = parseQuery(request.query);
      const realm = request.realm.name;
      let userId = query.user_id;
      if (query.username !== undefined) {
        const user = await store.users.get(realm, query.username);
        // An unknown person, or another one than user_id names, has no events.
        if (!user || (userId !== undefined && userId !== user.id)) return { events: [], next: null };
        userId = user.id;
      }
      // Events this instance recorded are stored before it reads them.
      await audit.flush();
      const pageSize = query.limit ?? DEFAULT_EVENT_LIMIT;
      const events = await store.auditEvents.list({
        realm,
        types: query.type,
        clientId: query.client_id,
        userId,
        since: query.since,
        until: query.until,
        before: query.before,
        limit: pageSize + 1,
      });
      const page = events.slice(0, pageSize);
      return { events: page.map(eventView), next: events.length > pageSize ? cursorOf(page.at(-1)!) : null };
    });
  };
}
