import { type Command, Option } from 'commander';
import { parseAssignments } from '../assignments.js';
import { UsageError } from '../errors.js';
import { objectFields, printLines, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';
import { collect, given, merged, readJson, readText } from './input.js';

interface TrustedIssuerView extends Record<string, unknown> {
  id: string;
  kind: string;
  issuer: string;
  subject_mapping: string;
  jwks?: { keys: unknown[] };
  jwks_uri?: string;
  certificate_pem?: string;
  client_ids?: string[];
}

interface RecordOptions extends ConnectionOptions {
  issuer?: string;
  jwksFile?: string;
  jwksUri?: string;
  certificateFile?: string;
  subjectMapping?: string;
  clientId: string[];
}

/** What the issuer is trusted by. */
const trustedBy = (issuer: TrustedIssuerView): string =>
  issuer.jwks ? `jwks (${issuer.jwks.keys.length})` : issuer.jwks_uri ? `jwks_uri ${issuer.jwks_uri}` : issuer.certificate_pem ? 'certificate' : '-';

/** The options both create and update take. */
function recordOptions(command: Command): Command {
  return command
    .option('--issuer <issuer>', "the JWT's iss, or the SAML assertion's Issuer, exactly")
    .option('--jwks-file <file>', 'a jwt issuer: its public keys, a JSON {"keys": […]} file (- for standard input)')
    .option('--jwks-uri <uri>', 'a jwt issuer: where it publishes its keys (https)')
    .option('--certificate-file <file>', 'a saml2 issuer: the PEM X.509 certificate it signs with (- for standard input)')
    .addOption(new Option('--subject-mapping <mapping>', "which attribute of the realm's people the assertion's subject names").choices(['username', 'email', 'id']))
    .option('--client-id <id>', 'a client that may present its assertions (repeatable; none: every client allowed the grant)', collect, []);
}

/** The record fields the options set, the files read. */
async function fieldsOf(options: RecordOptions): Promise<Record<string, unknown>> {
  if (options.jwksFile === '-' && options.certificateFile === '-') throw new UsageError('only one of --jwks-file and --certificate-file can read standard input');
  return given({
    issuer: options.issuer,
    jwks: options.jwksFile === undefined ? undefined : await readJson(options.jwksFile),
    jwks_uri: options.jwksUri,
    certificate_pem: options.certificateFile === undefined ? undefined : await readText(options.certificateFile),
    subject_mapping: options.subjectMapping,
    client_ids: options.clientId.length > 0 ? options.clientId : undefined,
  });
}

/** `realmgate trusted-issuer list|get|create|update|delete`: /admin/realms/{realm}/trusted-issuers. */
export function addTrustedIssuerCommands(program: Command): void {
  const issuer = program
    .command('trusted-issuer')
    .description('the identity systems whose JWTs or SAML 2.0 assertions a realm accepts (JWT and SAML 2.0 bearer grants, token exchange)');

  connectionOptions(issuer.command('list').description("a realm's trusted issuers").argument('<realm>')).action(async (realm: string, options: ConnectionOptions) => {
    const issuers = (await AdminApi.from(options).get(adminPath('realms', realm, 'trusted-issuers'))) as TrustedIssuerView[];
    print(options, issuers, (list) =>
      table<TrustedIssuerView>(
        [
          ['id', (i) => i.id],
          ['kind', (i) => i.kind],
          ['issuer', (i) => i.issuer],
          ['subject', (i) => i.subject_mapping],
          ['clients', (i) => i.client_ids ?? 'every client'],
          ['trusted_by', trustedBy],
        ],
        list,
      ),
    );
  });

  connectionOptions(issuer.command('get').alias('show').description('a trusted issuer').argument('<realm>').argument('<id>')).action(
    async (realm: string, id: string, options: ConnectionOptions) => {
      print(options, (await AdminApi.from(options).get(adminPath('realms', realm, 'trusted-issuers', id))) as TrustedIssuerView, objectFields);
    },
  );

  connectionOptions(
    recordOptions(
      issuer
        .command('create')
        .description('trust an issuer: a jwt one by its keys (--jwks-file or --jwks-uri), a saml2 one by its certificate (--certificate-file)')
        .argument('<realm>')
        .argument('[field=value...]', 'fields of the record as the admin API names them, each value JSON where it parses as JSON')
        .addOption(new Option('--kind <kind>', 'what it signs').choices(['jwt', 'saml2'])),
    ),
  ).action(async (realm: string, assignments: string[], options: RecordOptions & { kind?: string }) => {
    const body = merged({ ...given({ kind: options.kind }), ...(await fieldsOf(options)) }, parseAssignments(assignments, 'field'));
    print(options, (await AdminApi.from(options).post(adminPath('realms', realm, 'trusted-issuers'), body)) as TrustedIssuerView, objectFields);
  });

  connectionOptions(
    recordOptions(
      issuer
        .command('update')
        .description('change fields of a trusted issuer (the others stay; its kind cannot change); client_ids=null admits every client again')
        .argument('<realm>')
        .argument('<id>')
        .argument('[field=value...]', 'fields of the record, each value JSON where it parses as JSON; null clears an optional one'),
    ),
  ).action(async (realm: string, id: string, assignments: string[], options: RecordOptions) => {
    const patch = merged(await fieldsOf(options), parseAssignments(assignments, 'field'));
    if (Object.keys(patch).length === 0) throw new UsageError('name at least one field to change: an option, or field=value');
    print(options, (await AdminApi.from(options).patch(adminPath('realms', realm, 'trusted-issuers', id), patch)) as TrustedIssuerView, objectFields);
  });

  connectionOptions(
    issuer.command('delete').description('stop trusting an issuer: its assertions are refused from now on').argument('<realm>').argument('<id>'),
  ).action(async (realm: string, id: string, options: ConnectionOptions) => {
    await AdminApi.from(options).delete(adminPath('realms', realm, 'trusted-issuers', id));
    if (!options.json) printLines(`Trusted issuer ${printable(id)} of ${printable(realm)} deleted.`);
  });
}
