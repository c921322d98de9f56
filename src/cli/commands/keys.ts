import type { Command } from 'commander';
import { table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';

interface Key {
  kid: string;
  alg: string;
  current?: boolean;
  retired_at?: string;
}

/** `realmgate keys list|rotate`: /admin/realms/{realm}/keys. */
export function addKeyCommands(program: Command): void {
  const keys = program.command('keys').description("a realm's signing keys");

  connectionOptions(keys.command('list').description('the published keys: the current ones, and those retired while tokens they signed may live').argument('<realm>')).action(
    async (realm: string, options: ConnectionOptions) => {
      const answer = (await AdminApi.from(options).get(adminPath('realms', realm, 'keys'))) as { keys: Key[] };
      print(options, answer, ({ keys: list }) =>
        table<Key>([['kid', (k) => k.kid], ['alg', (k) => k.alg], ['current', (k) => k.current], ['retired_at', (k) => k.retired_at]], list),
      );
    },
  );

  connectionOptions(
    keys
      .command('rotate')
      .description('new RS256 and ES256 keys sign from now on; the old ones still verify until the tokens they signed expire')
      .argument('<realm>'),
  ).action(async (realm: string, options: ConnectionOptions) => {
    const answer = (await AdminApi.from(options).post(adminPath('realms', realm, 'keys', 'rotate'))) as { keys: Key[] };
    print(options, answer, ({ keys: list }) => table<Key>([['kid', (k) => k.kid], ['alg', (k) => k.alg]], list));
  });
}
