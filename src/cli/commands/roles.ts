import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { fields, printLines, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';
import { collect, given } from './input.js';

interface RoleView extends Record<string, unknown> {
  name: string;
  description: string;
}

interface GroupView extends RoleView {
  roles: string[];
}

interface GroupPutOptions extends ConnectionOptions {
  description?: string;
  role: string[];
  /** False with --no-roles. */
  roles: boolean;
}

const recordView = (record: Record<string, unknown>): string => fields(Object.entries(record));

/** `realmgate role list|get|put|delete` and `realmgate group list|get|put|delete`: /admin/realms/{realm}/roles and …/groups (CONTRACT.md §10). */
export function addRoleAndGroupCommands(program: Command): void {
  const role = program.command('role').description("list, read, store and delete a realm's roles");

  connectionOptions(role.command('list').description("a realm's roles").argument('<realm>')).action(async (realm: string, options: ConnectionOptions) => {
    const roles = (await AdminApi.from(options).get(adminPath('realms', realm, 'roles'))) as RoleView[];
    print(options, roles, (list) => table<RoleView>([['name', (r) => r.name], ['description', (r) => r.description]], list));
  });

  connectionOptions(role.command('get').alias('show').description('a role').argument('<realm>').argument('<name>')).action(
    async (realm: string, name: string, options: ConnectionOptions) => {
      print(options, (await AdminApi.from(options).get(adminPath('realms', realm, 'roles', name))) as RoleView, recordView);
    },
  );

  connectionOptions(
    role
      .command('put')
      .description('store a role, or give an existing one a new description')
      .argument('<realm>')
      .argument('<name>', 'letters, digits, ., _, : and -, starting with a letter or digit')
      .argument('[description]', 'what the role allows (left out: an existing role keeps its own)'),
  ).action(async (realm: string, name: string, description: string | undefined, options: ConnectionOptions) => {
    const answer = await AdminApi.from(options).put(adminPath('realms', realm, 'roles', name), given({ description }));
    print(options, answer as RoleView, recordView);
  });

  connectionOptions(
    role.command('delete').description('delete a role: it is taken from every group and person that has it').argument('<realm>').argument('<name>'),
  ).action(async (realm: string, name: string, options: ConnectionOptions) => {
    await AdminApi.from(options).delete(adminPath('realms', realm, 'roles', name));
    if (!options.json) printLines(`Role ${printable(name)} of ${printable(realm)} deleted.`);
  });

  const group = program.command('group').description("list, read, store and delete a realm's groups and the roles their members hold");

  connectionOptions(group.command('list').description("a realm's groups").argument('<realm>')).action(async (realm: string, options: ConnectionOptions) => {
    const groups = (await AdminApi.from(options).get(adminPath('realms', realm, 'groups'))) as GroupView[];
    print(options, groups, (list) =>
      table<GroupView>([['name', (g) => g.name], ['roles', (g) => g.roles], ['description', (g) => g.description]], list),
    );
  });

  connectionOptions(group.command('get').alias('show').description('a group and its roles').argument('<realm>').argument('<name>')).action(
    async (realm: string, name: string, options: ConnectionOptions) => {
      print(options, (await AdminApi.from(options).get(adminPath('realms', realm, 'groups', name))) as GroupView, recordView);
    },
  );

  connectionOptions(
    group
      .command('put')
      .description('store a group, or change one; what is not given stays')
      .argument('<realm>')
      .argument('<name>', 'letters, digits, ., _, : and -, starting with a letter or digit')
      .option('--description <text>', 'who the group is')
      .option('--role <role>', "a role its members hold (repeatable); the roles given replace the group's", collect, [])
      .option('--no-roles', 'its members hold no role through it'),
  ).action(async (realm: string, name: string, options: GroupPutOptions) => {
    if (!options.roles && options.role.length > 0) throw new UsageError('give --role or --no-roles, not both');
    const body = given({ description: options.description, roles: !options.roles ? [] : options.role.length > 0 ? options.role : undefined });
    print(options, (await AdminApi.from(options).put(adminPath('realms', realm, 'groups', name), body)) as GroupView, recordView);
  });

  connectionOptions(
    group.command('delete').description('delete a group: its members leave it, and lose the roles it gave them').argument('<realm>').argument('<name>'),
  ).action(async (realm: string, name: string, options: ConnectionOptions) => {
    await AdminApi.from(options).delete(adminPath('realms', realm, 'groups', name));
    if (!options.json) printLines(`Group ${printable(name)} of ${printable(realm)} deleted.`);
  });
}
