import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { fields, printLines, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';
import { collect, given } from './input.js';

interface ResourceView extends Record<string, unknown> {
  identifier: string;
  name?: string;
  scopes?: string[];
}

interface PutOptions extends ConnectionOptions {
  /** A string with --name, false with --no-name. */
  name?: string | false;
  scope: string[];
  /** False with --no-scopes. */
  scopes: boolean;
}

/** The resources' path: a resource is named by its identifier, a URI, in the query. */
const resourcesPath = (realm: string, identifier?: string): string =>
  `${adminPath('realms', realm, 'resources')}${identifier === undefined ? '' : `?${new URLSearchParams({ identifier })}`}`;

const resourceView = (resource: ResourceView): string => fields(Object.entries(resource));

/** `realmgate resource list|get|put|delete`: /admin/realms/{realm}/resources (CONTRACT.md §10). */
export function addResourceCommands(program: Command): void {
  const resource = program.command('resource').description("a realm's registered resources (APIs), which its clients may ask tokens for with resource (RFC 8707)");

  connectionOptions(resource.command('list').description("a realm's registered resources").argument('<realm>')).action(async (realm: string, options: ConnectionOptions) => {
    const resources = (await AdminApi.from(options).get(resourcesPath(realm))) as ResourceView[];
    print(options, resources, (list) =>
      table<ResourceView>([['identifier', (r) => r.identifier], ['name', (r) => r.name], ['scopes', (r) => r.scopes ?? 'any']], list),
    );
  });

  connectionOptions(resource.command('get').alias('show').description('a registered resource').argument('<realm>').argument('<identifier>')).action(
    async (realm: string, identifier: string, options: ConnectionOptions) => {
      print(options, (await AdminApi.from(options).get(resourcesPath(realm, identifier))) as ResourceView, resourceView);
    },
  );

  connectionOptions(
    resource
      .command('put')
      .description('register a resource, or change one; what is not given stays')
      .argument('<realm>')
      .argument('<identifier>', 'an absolute URI without a fragment, e.g. https://orders.example/')
      .option('--name <name>', 'what the consent page calls it')
      .option('--no-name', 'no name: the consent page shows the identifier')
      .option('--scope <scope>', 'a scope that means something at it (repeatable): a token for it carries only these of the scopes asked', collect, [])
      .option('--no-scopes', 'a token for it carries any scope asked'),
  ).action(async (realm: string, identifier: string, options: PutOptions) => {
    if (!options.scopes && options.scope.length > 0) throw new UsageError('give --scope or --no-scopes, not both');
    const body = {
      identifier,
      ...given({
        name: options.name === false ? null : options.name,
        scopes: !options.scopes ? null : options.scope.length > 0 ? options.scope : undefined,
      }),
    };
    print(options, (await AdminApi.from(options).put(resourcesPath(realm), body)) as ResourceView, resourceView);
  });

  connectionOptions(resource.command('delete').description('unregister a resource').argument('<realm>').argument('<identifier>')).action(
    async (realm: string, identifier: string, options: ConnectionOptions) => {
      await AdminApi.from(options).delete(resourcesPath(realm, identifier));
      if (!options.json) printLines(`Resource ${printable(identifier)} of ${printable(realm)} deleted.`);
    },
  );
}
