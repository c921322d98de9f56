import { AUDIT_EVENT_TYPES } from '../../../audit/audit-log.js';
import { DEFAULT_EVENT_LIMIT, EventQuerySchema, MAX_EVENT_LIMIT } from '../../events.js';
import type { Operation } from '../operation.js';

/** A realm's audit events. */
export const eventOperations: readonly Operation[] = [
  {
    method: 'GET', path: '/admin/realms/:realm/events', operationId: 'listEvents', tag: 'Audit events', summary: 'Read the realm\'s audit events',
    description: 'Newest first, a page at a time. Unknown query parameters are refused (400), so that a misspelt filter does not widen the answer.',
    query: {
      schema: EventQuerySchema,
      parameters: {
        type: {
          description: `Event types, repeated (\`type=a&type=b\`) or comma-separated (\`type=a,b\`), of: ${AUDIT_EVENT_TYPES.map((type) => `\`${type}\``).join(', ')}`,
          example: 'client.created,client.deleted',
        },
        client_id: { description: 'Events of this client' },
        user_id: { description: 'Events of this person, by their `sub`' },
        username: { description: 'Events of this person, by their username' },
        since: { description: 'Events at or after this instant (ISO 8601 with an offset)', example: '2026-01-31T12:00:00Z' },
        until: { description: 'Events before this instant' },
        limit: { description: `Events per page, 1 to ${MAX_EVENT_LIMIT}; ${DEFAULT_EVENT_LIMIT} when not given`, example: '50' },
        before: { description: 'The `next` value of the previous page' },
      },
    },
    responses: { 200: { description: 'A page of events', schema: 'AuditEventPage' } },
  },
];
