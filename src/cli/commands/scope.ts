import type { Command } from 'commander';
import { fields, printLines, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';

interface ScopeView extends Record<string, unknown> {
  name: string;
  description: string;
}

const scopeView = (scope: ScopeView): string => fields(Object.entries(scope));

/** `realmgate scope list|get|put|delete`: /admin/realms/{realm}/scopes. */
export function addScopeCommands(program: Command): void {
  const scope = program.command('scope').description("list, read, store and delete a realm's scopes");

  connectionOptions(scope.command('list').description("a realm's scopes, the built-in ones (openid, profile, email) among them").argument('<realm>')).action(
    async (realm: string, options: ConnectionOptions) => {
      const scopes = (await AdminApi.from(options).get(adminPath('realms', realm, 'scopes'))) as ScopeView[];
      print(options, scopes, (list) => table<ScopeView>([['name', (s) => s.name], ['description', (s) => s.description]], list));
    },
  );

  connectionOptions(scope.command('get').alias('show').description('a scope').argument('<realm>').argument('<name>')).action(
    async (realm: string, name: string, options: ConnectionOptions) => {
      print(options, (await AdminApi.from(options).get(adminPath('realms', realm, 'scopes', name))) as ScopeView, scopeView);
    },
  );

  connectionOptions(
    scope
      .command('put')
      .description('store a scope, or give an existing one a new description')
      .argument('<realm>')
      .argument('<name>', 'a scope-token (RFC 6749 §3.3), e.g. orders:read')
      .argument('<description>', 'what the consent page says of it'),
  ).action(async (realm: string, name: string, description: string, options: ConnectionOptions) => {
    print(options, (await AdminApi.from(options).put(adminPath('realms', realm, 'scopes', name), { description })) as ScopeView, scopeView);
  });

  connectionOptions(
    scope
      .command('delete')
      .description('delete a scope; a built-in one, or one a client lists, is refused')
      .argument('<realm>')
      .argument('<name>'),
  ).action(async (realm: string, name: string, options: ConnectionOptions) => {
    await AdminApi.from(options).delete(adminPath('realms', realm, 'scopes', name));
    if (!options.json) printLines(`Scope ${printable(name)} of ${printable(realm)} deleted.`);
  });
}
