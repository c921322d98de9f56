import type { Command } from 'commander';
import { printLines, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';

interface PasskeyView {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  backed_up: boolean;
}

interface ConsentView {
  client_id: string;
  client_name: string | null;
  scope: string;
  granted_at: string;
}

/** Mails an operator has the server send a person (CONTRACT.md §16): the path's last segment, and what the mail holds. */
const MAILS = [
  { command: 'send-reset', what: 'a link to choose a new password' },
  { command: 'send-verification', what: 'a link that confirms their email address' },
] as const;

/**
 * `realmgate user send-reset|send-verification|remove-totp|passkeys|delete-passkey|consents|revoke-consent`:
 * what an operator does for a person (CONTRACT.md §16), below the `user` command.
 */
export function addUserActionCommands(user: Command): void {
  for (const mail of MAILS) {
    connectionOptions(
      user.command(mail.command).description(`mail a user ${mail.what}, in their language (the self-service limits apply)`).argument('<realm>').argument('<username>'),
    ).action(async (realm: string, username: string, options: ConnectionOptions) => {
      await AdminApi.from(options).post(adminPath('realms', realm, 'users', username, mail.command), {});
      if (!options.json) printLines(`${printable(username)} of ${printable(realm)} was mailed ${mail.what}.`);
    });
  }

  connectionOptions(
    user.command('remove-totp').description("remove a user's one-time code generator (they may set up another)").argument('<realm>').argument('<username>'),
  ).action(async (realm: string, username: string, options: ConnectionOptions) => {
    await AdminApi.from(options).delete(adminPath('realms', realm, 'users', username, 'totp'));
    if (!options.json) printLines(`The one-time code generator of ${printable(username)} of ${printable(realm)} is removed.`);
  });

  connectionOptions(user.command('passkeys').description("a user's passkeys: their ids, names and last use").argument('<realm>').argument('<username>')).action(
    async (realm: string, username: string, options: ConnectionOptions) => {
      const answer = (await AdminApi.from(options).get(adminPath('realms', realm, 'users', username, 'passkeys'))) as { passkeys: PasskeyView[] };
      print(options, answer, ({ passkeys }) =>
        table<PasskeyView>(
          [
            ['id', (p) => p.id],
            ['name', (p) => p.name],
            ['created_at', (p) => p.created_at],
            ['last_used_at', (p) => p.last_used_at],
            ['backed_up', (p) => p.backed_up],
          ],
          passkeys,
        ),
      );
    },
  );

  connectionOptions(
    user
      .command('delete-passkey')
      .description("delete one of a user's passkeys (kept when it is their only way to sign in)")
      .argument('<realm>')
      .argument('<username>')
      .argument('<id>', 'the passkey\'s id, as `user passkeys` lists it'),
  ).action(async (realm: string, username: string, id: string, options: ConnectionOptions) => {
    await AdminApi.from(options).delete(adminPath('realms', realm, 'users', username, 'passkeys', id));
    if (!options.json) printLines(`The passkey ${printable(id)} of ${printable(username)} of ${printable(realm)} is deleted.`);
  });

  connectionOptions(user.command('consents').description('the clients a user allowed, and the scopes they allowed each').argument('<realm>').argument('<username>')).action(
    async (realm: string, username: string, options: ConnectionOptions) => {
      const answer = (await AdminApi.from(options).get(adminPath('realms', realm, 'users', username, 'consents'))) as { consents: ConsentView[] };
      print(options, answer, ({ consents }) =>
        table<ConsentView>(
          [
            ['client_id', (c) => c.client_id],
            ['client_name', (c) => c.client_name],
            ['scope', (c) => c.scope],
            ['granted_at', (c) => c.granted_at],
          ],
          consents,
        ),
      );
    },
  );

  connectionOptions(
    user
      .command('revoke-consent')
      .description("withdraw what a user allowed a client: the client's tokens for them are revoked, and it must ask again")
      .argument('<realm>')
      .argument('<username>')
      .argument('<client_id>'),
  ).action(async (realm: string, username: string, clientId: string, options: ConnectionOptions) => {
    await AdminApi.from(options).delete(adminPath('realms', realm, 'users', username, 'consents', clientId));
    if (!options.json) printLines(`The consent of ${printable(username)} of ${printable(realm)} to ${printable(clientId)} is withdrawn; its tokens are revoked.`);
  });
}
