import { type Command, InvalidArgumentError } from 'commander';
import { parseAssignments } from '../assignments.js';
import { UsageError } from '../errors.js';
import { notice, objectFields, printLines, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';
import { collect, given, merged } from './input.js';

interface ClientView extends Record<string, unknown> {
  client_id: string;
  client_type: string;
  client_name?: string;
  grant_types: string[];
  token_endpoint_auth_method: string;
  client_secret?: string;
}

interface RecordOptions extends ConnectionOptions {
  name?: string;
  redirectUri: string[];
  grantType: string[];
  scope?: string;
  backchannelLogoutUri?: string;
  backchannelLogoutSessionRequired?: boolean;
  frontchannelLogoutUri?: string;
  subjectType?: string;
  sectorIdentifierUri?: string;
  authorizationDetailsType: string[];
  introspectionSignedResponseAlg?: string;
  frontchannelLogoutSessionRequired?: boolean;
  authorizationSignedResponseAlg?: string;
  backchannelTokenDeliveryMode?: string;
  backchannelClientNotificationEndpoint?: string;
}

/** A yes-or-no option's value: `true` or `false`, nothing else (the server checks the other fields' values). */
function yesOrNo(value: string): boolean {
  if (value === 'true' || value === 'false') return value === 'true';
  throw new InvalidArgumentError('true or false');
}

interface CreateOptions extends RecordOptions {
  clientId?: string;
  public?: boolean;
}

/** The options both create and update take: the fields a person sets most. */
function recordOptions(command: Command, use: 'create' | 'update'): Command {
  const replaces = use === 'update' ? '; the ones given replace the stored list' : '';
  return command
    .option('--name <name>', 'client_name')
    .option('--redirect-uri <uri>', `a redirect URI (repeatable${replaces})`, collect, [])
    .option('--grant-type <type>', `a grant type it may use (repeatable${use === 'create' ? '; default authorization_code' : replaces})`, collect, [])
    .option('--scope <scope>', 'the scopes it may ask for, space-separated')
    .option('--backchannel-logout-uri <uri>', 'where a logout token is POSTed when a session it received tokens in ends')
    .option('--backchannel-logout-session-required <true|false>', 'its logout tokens must carry sid (they always do)', yesOrNo)
    .option('--frontchannel-logout-uri <uri>', 'the page the end-session page frames, with iss and sid, when such a session ends')
    .option('--frontchannel-logout-session-required <true|false>', 'its front-channel logout URI must receive iss and sid (it always does)', yesOrNo)
    .option('--authorization-signed-response-alg <alg>', 'RS256 or ES256: signs its JARM authorization responses')
    .option('--backchannel-token-delivery-mode <mode>', 'CIBA: poll, ping or push')
    .option('--backchannel-client-notification-endpoint <uri>', 'CIBA: where pings or pushed tokens are POSTed (ping and push modes)')
    .option('--subject-type <type>', 'public (every client sees the same sub of a person) or pairwise (a sub of its sector alone)')
    .option('--sector-identifier-uri <uri>', 'an https JSON array listing every redirect URI: its host is the sector of pairwise subjects')
    .option('--authorization-details-type <type>', `an authorization_details type it may ask for (RFC 9396; repeatable${replaces})`, collect, [])
    .option('--introspection-signed-response-alg <alg>', 'RS256 or ES256: signs the introspection answers it asks for as JWTs (RFC 9701)');
}

/** The record fields the options set. */
const fieldsOf = (options: RecordOptions): Record<string, unknown> =>
  given({
    client_name: options.name,
    redirect_uris: options.redirectUri.length > 0 ? options.redirectUri : undefined,
    grant_types: options.grantType.length > 0 ? options.grantType : undefined,
    scope: options.scope,
    backchannel_logout_uri: options.backchannelLogoutUri,
    backchannel_logout_session_required: options.backchannelLogoutSessionRequired,
    frontchannel_logout_uri: options.frontchannelLogoutUri,
    subject_type: options.subjectType,
    sector_identifier_uri: options.sectorIdentifierUri,
    authorization_details_types: options.authorizationDetailsType.length > 0 ? options.authorizationDetailsType : undefined,
    introspection_signed_response_alg: options.introspectionSignedResponseAlg,
    frontchannel_logout_session_required: options.frontchannelLogoutSessionRequired,
    authorization_signed_response_alg: options.authorizationSignedResponseAlg,
    backchannel_token_delivery_mode: options.backchannelTokenDeliveryMode,
    backchannel_client_notification_endpoint: options.backchannelClientNotificationEndpoint,
  });

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

/** `realmgate client list|show|create|update|delete|rotate-secret`: /admin/realms/{realm}/clients. */
export function addClientCommands(program: Command): void {
  const client = program.command('client').description("list, show, create, change and delete a realm's clients; rotate a client's secret");

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

  connectionOptions(client.command('show').alias('get').description("a client's record").argument('<realm>').argument('<client_id>')).action(
    async (realm: string, clientId: string, options: ConnectionOptions) => {
      const record = (await AdminApi.from(options).get(adminPath('realms', realm, 'clients', clientId))) as ClientView;
      print(options, record, clientFields);
    },
  );

  connectionOptions(
    recordOptions(
      client
        .command('create')
        .description('create a client; a confidential one gets a secret, shown once')
        .argument('<realm>')
        .argument('[field=value...]', 'more of the client record (CONTRACT.md §5), each value JSON where it parses as JSON, e.g. introspect_any_token=true')
        .option('--client-id <id>', 'its client_id (default: generated)')
        .option('--public', 'a public client (no secret; PKCE always)'),
      'create',
    ),
  ).action(async (realm: string, assignments: string[], options: CreateOptions) => {
    const fromOptions = { ...given({ client_id: options.clientId, client_type: options.public ? 'public' : undefined }), ...fieldsOf(options) };
    const body = merged(fromOptions, parseAssignments(assignments, 'field'));
    const created = (await AdminApi.from(options).post(adminPath('realms', realm, 'clients'), body)) as ClientView;
    print(options, created, clientWithSecret);
  });

  connectionOptions(
    recordOptions(
      client
        .command('update')
        .description('change fields of a client (the others stay); a field set to null is cleared, e.g. journey=null')
        .argument('<realm>')
        .argument('<client_id>')
        .argument('[field=value...]', 'fields of the client record (CONTRACT.md §5), each value JSON where it parses as JSON'),
      'update',
    ),
  ).action(async (realm: string, clientId: string, assignments: string[], options: RecordOptions) => {
    const patch = merged(fieldsOf(options), parseAssignments(assignments, 'field'));
    if (Object.keys(patch).length === 0) throw new UsageError('name at least one field to change: an option, or field=value');
    const updated = (await AdminApi.from(options).patch(adminPath('realms', realm, 'clients', clientId), patch)) as ClientView;
    // A client that now authenticates with a secret it never had is given one, shown this once.
    print(options, updated, clientWithSecret);
  });

  connectionOptions(
    client
      .command('delete')
      .description('delete a client; its tokens stop working at once')
      .argument('<realm>')
      .argument('<client_id>'),
  ).action(async (realm: string, clientId: string, options: ConnectionOptions) => {
    await AdminApi.from(options).delete(adminPath('realms', realm, 'clients', clientId));
    if (!options.json) printLines(`Client ${printable(clientId)} of ${printable(realm)} deleted.`);
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
