import type { Command } from 'commander';
import { parseAssignments } from '../assignments.js';
import { UsageError } from '../errors.js';
import { fields, notice, printJson, printLines, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import type { ImportSummary } from '../../admin/realm-data/import.js';
import type { SectionSummary } from '../../admin/realm-data/plan.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';
import { readJson } from './input.js';

interface RealmView {
  name: string;
  issuer: string;
  settings: Record<string, unknown>;
  created_at: string;
}

const SETTING_EXAMPLES = 'e.g. access_token_lifetime=600 require_pkce=true authentication=\'["password","otp"]\'';

export function realmView(realm: RealmView): string {
  return [
    fields([
      ['name', realm.name],
      ['issuer', realm.issuer],
      ['created_at', realm.created_at],
    ]),
    '',
    table<[string, unknown]>([['setting', ([name]) => name], ['value', ([, value]) => value]], Object.entries(realm.settings)),
  ].join('\n');
}

const PEOPLE_NOTICE = 'The document holds the password hashes of the realm\'s people: keep it as a secret.';

/** What an import did, section by section, and the commands that give what it brought a secret. */
export function importSummary(summary: ImportSummary): string {
  const realm = printable(summary.realm);
  const sections = Object.entries(summary.sections).filter((entry): entry is [string, SectionSummary] => entry[1] !== undefined);
  const lines = [`Realm ${realm} ${summary.realm_created ? 'created' : 'imported'}${summary.prune ? ' (pruned)' : ''}.`];
  if (sections.length > 0) {
    lines.push(
      '',
      table<[string, SectionSummary]>(
        [
          ['section', ([name]) => name],
          ['created', ([, done]) => done.created.length],
          ['changed', ([, done]) => done.changed.length],
          ['deleted', ([, done]) => done.deleted.length],
          ['unchanged', ([, done]) => done.unchanged],
        ],
        sections,
      ),
    );
  }
  const { clients, identity_providers: providers } = summary.secrets_to_set;
  if (clients.length + providers.length > 0) {
    lines.push('', 'Without a secret yet (a document never carries one):');
    for (const client of clients) lines.push(`  client ${printable(client)}: realmgate client rotate-secret ${realm} ${printable(client)}`);
    for (const alias of providers) lines.push(`  identity provider ${printable(alias)}: realmgate identity-provider update ${realm} ${printable(alias)} --client-secret-stdin`);
  }
  return lines.join('\n');
}

/** `realmgate realm list|show|create|set|delete|export|import`: /admin/realms. */
export function addRealmCommands(program: Command): void {
  const realm = program.command('realm').description('list, show, create and delete realms, and change their settings');

  connectionOptions(realm.command('list').description('list the realms')).action(async (options: ConnectionOptions) => {
    const realms = (await AdminApi.from(options).get('realms')) as RealmView[];
    print(options, realms, (list) =>
      table<RealmView>([['name', (r) => r.name], ['issuer', (r) => r.issuer], ['created_at', (r) => r.created_at]], list),
    );
  });

  connectionOptions(realm.command('show').alias('get').description("a realm's issuer and settings").argument('<realm>')).action(
    async (name: string, options: ConnectionOptions) => {
      print(options, (await AdminApi.from(options).get(adminPath('realms', name))) as RealmView, realmView);
    },
  );

  connectionOptions(
    realm
      .command('create')
      .description(`create a realm (with its signing keys), optionally with settings: ${SETTING_EXAMPLES}`)
      .argument('<realm>', 'its name: a-z, 0-9 and -')
      .argument('[setting=value...]', 'settings, each value JSON where it parses as JSON, else text'),
  ).action(async (name: string, assignments: string[], options: ConnectionOptions) => {
    const settings = parseAssignments(assignments, 'setting');
    const body = Object.keys(settings).length > 0 ? { name, settings } : { name };
    print(options, (await AdminApi.from(options).post('realms', body)) as RealmView, realmView);
  });

  connectionOptions(
    realm
      .command('set')
      .description(`change settings of a realm (the others stay): ${SETTING_EXAMPLES}`)
      .argument('<realm>')
      .argument('<setting=value...>', 'settings, each value JSON where it parses as JSON, else text'),
  ).action(async (name: string, assignments: string[], options: ConnectionOptions) => {
    const settings = parseAssignments(assignments, 'setting');
    if (Object.keys(settings).length === 0) throw new UsageError('name at least one setting=value');
    print(options, (await AdminApi.from(options).patch(adminPath('realms', name), { settings })) as RealmView, realmView);
  });

  connectionOptions(
    realm
      .command('delete')
      .description('delete a realm with everything in it: clients, people, scopes, journeys, providers, keys and tokens (the root realm cannot be)')
      .argument('<realm>'),
  ).action(async (name: string, options: ConnectionOptions) => {
    await AdminApi.from(options).delete(adminPath('realms', name));
    // The server answers nothing: with --json, the exit code says it is done.
    if (!options.json) printLines(`Realm ${printable(name)} deleted.`);
  });

  connectionOptions(
    realm
      .command('export')
      .description('print a realm as one JSON document (docs/realms-as-data.md): settings, scopes, journeys, clients, providers, trusted issuers; never a secret')
      .argument('<realm>')
      .option('--users', 'with the people and their password hashes'),
  ).action(async (name: string, options: ConnectionOptions & { users?: boolean }) => {
    const path = `${adminPath('realms', name, 'export')}${options.users ? '?users=true' : ''}`;
    const document = await AdminApi.from(options).get(path);
    if (options.users) notice(PEOPLE_NOTICE);
    // The document is JSON whether or not --json is given: what `realm import` reads.
    printJson(document);
  });

  connectionOptions(
    realm
      .command('import')
      .description('apply a document of `realm export` to a realm, creating it when there is none; what is the same is left as it is')
      .argument('<realm>')
      .argument('[file]', 'the document, or - (the default) to read it from standard input', '-')
      .option('--prune', 'delete what a section of the document leaves out (never a built-in scope)'),
  ).action(async (name: string, file: string, options: ConnectionOptions & { prune?: boolean }) => {
    const document = await readJson(file);
    const path = `${adminPath('realms', name, 'import')}${options.prune ? '?prune=true' : ''}`;
    print(options, (await AdminApi.from(options).put(path, document)) as ImportSummary, importSummary);
  });
}
