import type { Command } from 'commander';
import { notice, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';
import { collect } from './input.js';

interface AuditEvent {
  id: string;
  occurred_at: string;
  type: string;
  client_id: string | null;
  user_id: string | null;
  address: string | null;
  details: Record<string, unknown>;
}

interface ListOptions extends ConnectionOptions {
  type: string[];
  clientId?: string;
  userId?: string;
  username?: string;
  since?: string;
  until?: string;
  limit?: string;
  before?: string;
}

/** The filters as the admin API's query; the server checks them and names a wrong one. */
function queryOf(options: ListOptions): URLSearchParams {
  const query = new URLSearchParams();
  for (const type of options.type) query.append('type', type);
  const filters: Array<[string, string | undefined]> = [
    ['client_id', options.clientId],
    ['user_id', options.userId],
    ['username', options.username],
    ['since', options.since],
    ['until', options.until],
    ['limit', options.limit],
    ['before', options.before],
  ];
  for (const [name, value] of filters) if (value !== undefined) query.set(name, value);
  return query;
}

/** `realmgate events list`: GET /admin/realms/{realm}/events, newest first, a page at a time. */
export function addEventCommands(program: Command): void {
  const events = program.command('events').description("a realm's audit trail");

  connectionOptions(
    events
      .command('list')
      .description('audit events, newest first; --before with the next value a page ends with gives the page after it')
      .argument('<realm>')
      .option('--type <type>', 'an event type, e.g. sign_in.failed (repeatable)', collect, [])
      .option('--client-id <id>', 'events of this client')
      .option('--user-id <sub>', 'events of this person, by sub')
      .option('--username <username>', 'events of this person, by username')
      .option('--since <instant>', 'from this ISO 8601 instant on, e.g. 2026-01-31T12:00:00Z')
      .option('--until <instant>', 'before this ISO 8601 instant')
      .option('--limit <n>', 'at most this many, up to 1000 [default: 100]')
      .option('--before <next>', "the page after the one whose next value this is"),
  ).action(async (realm: string, options: ListOptions) => {
    const query = queryOf(options).toString();
    const path = `${adminPath('realms', realm, 'events')}${query ? `?${query}` : ''}`;
    const answer = (await AdminApi.from(options).get(path)) as { events: AuditEvent[]; next: string | null };
    print(options, answer, ({ events: list, next }) => {
      if (next !== null) notice(`More events: add --before ${printable(next)}`);
      return table<AuditEvent>(
        [
          ['occurred_at', (e) => e.occurred_at],
          ['type', (e) => e.type],
          ['client_id', (e) => e.client_id ?? undefined],
          ['user_id', (e) => e.user_id ?? undefined],
          ['address', (e) => e.address ?? undefined],
          ['details', (e) => e.details],
        ],
        list,
      );
    });
  });
}
