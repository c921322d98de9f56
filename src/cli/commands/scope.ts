import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { fields, printLines, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';
import { readJson } from './input.js';

interface ScopeClaim {
  name: string;
  source: string;
  tokens: string[];
}

interface ScopeView extends Record<string, unknown> {
  name: string;
  description: string;
  claims?: ScopeClaim[];
}

interface PutOptions extends ConnectionOptions {
  claims?: string;
  claimsFile?: string;
}

/** A mapped claim in one cell: `name<-source->tokens`. */
const claimText = ({ name, source, tokens }: ScopeClaim): string => `${name}<-${source}->${tokens.join(',')}`;

const scopeView = (scope: ScopeView): string =>
  fields(Object.entries(scope).map(([name, value]) => [name, name === 'claims' ? (value as ScopeClaim[]).map(claimText) : value] as const));

/** The claims to store: JSON given inline or in a file; none given, the stored ones stay. */
async function claimsOf(options: PutOptions): Promise<unknown> {
  if (options.claims !== undefined && options.claimsFile !== undefined) throw new UsageError('give --claims or --claims-file, not both');
  if (options.claimsFile !== undefined) return readJson(options.claimsFile);
  if (options.claims === undefined) return undefined;
  try {
    return JSON.parse(options.claims);
  } catch (error) {
    throw new UsageError(`--claims is not JSON: ${(error as Error).message}`);
  }
}

/** `realmgate scope list|get|put|delete`: /admin/realms/{realm}/scopes. */
export function addScopeCommands(program: Command): void {
  const scope = program.command('scope').description("list, read, store and delete a realm's scopes");

  connectionOptions(scope.command('list').description("a realm's scopes, the built-in ones (openid, profile, email) among them").argument('<realm>')).action(
    async (realm: string, options: ConnectionOptions) => {
      const scopes = (await AdminApi.from(options).get(adminPath('realms', realm, 'scopes'))) as ScopeView[];
      print(options, scopes, (list) =>
        table<ScopeView>([['name', (s) => s.name], ['description', (s) => s.description], ['claims', (s) => (s.claims ?? []).map(claimText)]], list),
      );
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
      .description('store a scope, or give an existing one a new description (and claims)')
      .argument('<realm>')
      .argument('<name>', 'a scope-token (RFC 6749 §3.3), e.g. orders:read')
      .argument('<description>', 'what the consent page says of it')
      .option('--claims <json>', 'the claims its tokens carry, replacing the stored ones: [{"name": "roles", "source": "roles", "tokens": ["access_token"]}]; [] removes them')
      .option('--claims-file <file>', 'the same from a file (- for standard input)'),
  ).action(async (realm: string, name: string, description: string, options: PutOptions) => {
    const claims = await claimsOf(options);
    const body = claims === undefined ? { description } : { description, claims };
    print(options, (await AdminApi.from(options).put(adminPath('realms', realm, 'scopes', name), body)) as ScopeView, scopeView);
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
