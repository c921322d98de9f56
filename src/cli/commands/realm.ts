import type { Command } from 'commander';
import { parseAssignments } from '../assignments.js';
import { UsageError } from '../errors.js';
import { fields, printLines, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';

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

/** `realmgate realm list|show|create|set|delete`: /admin/realms. */
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
}
