import type { Command } from 'commander';
import { parseAssignments } from '../assignments.js';
import { UsageError } from '../errors.js';
import { notice, objectFields, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';

interface ClientView extends Record<string, unknown> {
  client_id: string;
  client_type: string;
  client_name?: string;
  grant_types: string[];
  token_endpoint_auth_method: string;
  client_secret?: string;
}

interface CreateOptions extends ConnectionOptions {
  clientId?: string;
  name?: string;
  public?: boolean;
  redirectUri: string[];
  grantType: string[];
  scope?: string;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

const SECRET_NOTICE = 'The client secret is shown this once: keep it now. `realmgate client rotate-secret` replaces it.';

/** The fields a person looks for first; the others follow in the server's order. */
const FIRST_FIELDS = ['client_id', 'client_type', 'client_name', 'token_endpoint_auth_method', 'grant_types', 'redirect_uris', 'scope'];

function clientFields(client: Record<string, unknown>): string {
  const ordered = Object.fromEntries(FIRST_FIELDS.filter((name) => Object.hasOwn(client, name)).map((name) => [name, client[name]]));
  const issuedAt = client.client_id_issued_at;
  return objectFields({
    ...ordered,
    ...client,
    ...(typeof issuedAt === 'number' ? { client_id_issued_at: `${issuedAt} (${new Date(issuedAt * 1000).toISOString()})` } : {}),
  });
}

/** A client record, its new secret (if any) last and announced. */
function clientWithSecret(client: ClientView): string {
  const { client_secret: secret, client_secret_expires_at: _expires, ...record } = client;
  const text = clientFields(secret === undefined ? record : { ...record, client_secret: secret });
  if (secret !== undefined) notice(SECRET_NOTICE);
  return text;
}

/** `realmgate client list|show|create|rotate-secret`: /admin/realms/{realm}/clients. */
export function addClientCommands(program: Command): void {
  const client = program.command('client').description("list, show and create a realm's clients; rotate a client's secret");

  connectionOptions(client.command('list').description("list a realm's clients").argument('<realm>')).action(
    async (realm: string, options: ConnectionOptions) => {
      const clients = (await AdminApi.from(options).get(adminPath('realms', realm, 'clients'))) as ClientView[];
      print(options, clients, (list) =>
        table<ClientView>(
          [
            ['client_id', (c) => c.client_id],
            ['type', (c) => c.client_type],
            ['name', (c) => c.client_name],
            ['auth_method', (c) => c.token_endpoint_auth_method],
            ['grant_types', (c) => c.grant_types],
          ],
          list,
        ),
      );
    },
  );

  connectionOptions(client.command('show').description("a client's record").argument('<realm>').argument('<client_id>')).action(
    async (realm: string, clientId: string, options: ConnectionOptions) => {
      const record = (await AdminApi.from(options).get(adminPath('realms', realm, 'clients', clientId))) as ClientView;
      print(options, record, clientFields);
    },
  );

  connectionOptions(
    client
      .command('create')
      .description('create a client; a confidential one gets a secret, shown once')
      .argument('<realm>')
      .argument('[field=value...]', 'more of the client record (CONTRACT.md §5), each value JSON where it parses as JSON, e.g. introspect_any_token=true')
      .option('--client-id <id>', 'its client_id (default: generated)')
      .option('--name <name>', 'client_name')
      .option('--public', 'a public client (no secret; PKCE always)')
      .option('--redirect-uri <uri>', 'a redirect URI (repeatable)', collect, [])
      .option('--grant-type <type>', 'a grant type it may use (repeatable; default authorization_code)', collect, [])
      .option('--scope <scope>', 'the scopes it may ask for, space-separated'),
  ).action(async (realm: string, assignments: string[], options: CreateOptions) => {
    const record = parseAssignments(assignments, 'field');
    const fromOptions: Record<string, unknown> = {
      ...(options.clientId === undefined ? {} : { client_id: options.clientId }),
      ...(options.name === undefined ? {} : { client_name: options.name }),
      ...(options.public ? { client_type: 'public' } : {}),
      ...(options.redirectUri.length > 0 ? { redirect_uris: options.redirectUri } : {}),
      ...(options.grantType.length > 0 ? { grant_types: options.grantType } : {}),
      ...(options.scope === undefined ? {} : { scope: options.scope }),
    };
    for (const name of Object.keys(fromOptions)) {
      if (Object.hasOwn(record, name)) throw new UsageError(`${name} is given both as an option and as ${name}=value`);
    }
    const created = (await AdminApi.from(options).post(adminPath('realms', realm, 'clients'), { ...fromOptions, ...record })) as ClientView;
    print(options, created, clientWithSecret);
  });

  connectionOptions(
    client
      .command('rotate-secret')
      .description("give a confidential client a new secret (shown once); the old one stops working at once")
      .argument('<realm>')
      .argument('<client_id>'),
  ).action(async (realm: string, clientId: string, options: ConnectionOptions) => {
    const answer = (await AdminApi.from(options).post(adminPath('realms', realm, 'clients', clientId, 'secret'))) as ClientView;
    print(options, answer, clientWithSecret);
  });
}
