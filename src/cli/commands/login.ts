import { type Command, Option } from 'commander';
import { credentialsPath, deleteCredentials, readCredentials, writeCredentials } from '../credentials.js';
import { CliError } from '../errors.js';
import { notice, printLines, printable } from '../output.js';
import { DEFAULT_URL, serverUrl, send } from '../server.js';
import { adminResourceOf, pollForTokens, revokeTokens, startDeviceAuthorization } from '../sign-in.js';

/**
 * `realmgate login` and `realmgate logout` (CONTRACT.md §14): a person of the `root` realm signs
 * the command line in with the device authorization grant, and the admin commands then use their
 * access token, refreshed as needed, until `logout` revokes it.
 */
export function addLoginCommands(program: Command): void {
  program
    .command('login')
    .description(
      'sign in as a person of the root realm (device authorization grant, client realmgate-cli): open the address shown, sign in and approve; ' +
        `the admin commands then act with your roles. Credentials go to $XDG_CONFIG_HOME/realmgate/credentials.json (mode 0600). ` +
        'ADMIN_TOKEN or REALMGATE_ADMIN_TOKEN in the environment (or --token) still wins over them',
    )
    .addOption(new Option('--server <url>', `the server's public address [default: ${DEFAULT_URL}]`).env('REALMGATE_URL'))
    .action(async (options: { server?: string }) => {
      const server = serverUrl({ ...(options.server ? { url: options.server } : {}) }, '--server');
      const resource = await adminResourceOf(server);
      const device = await startDeviceAuthorization(server);
      notice(`To sign in, open ${printable(device.verification_uri_complete ?? device.verification_uri)}`);
      notice(`and check that it shows the code ${printable(device.user_code)} (or open ${printable(device.verification_uri)} and type it).`);
      notice('Waiting for the sign-in…');
      const credentials = await pollForTokens(server, device, resource);
      // A person who holds no realmgate-* role gets a token the admin API refuses: said now, and nothing kept.
      try {
        await send(new URL('admin/realms', server), { method: 'GET', headers: { authorization: `Bearer ${credentials.access_token}`, accept: 'application/json' } });
      } catch (error) {
        if (/invalid_token/.test((error as Error).message)) {
          await revokeTokens(credentials).catch(() => {});
          throw new CliError('signed in, but the admin API refuses the token: the person holds no realmgate-* role in the root realm');
        }
        // Another answer (the admin API on ADMIN_PORT, say) does not tell: the sign-in is kept.
      }
      writeCredentials(credentials);
      printLines(`Signed in to ${printable(credentials.server)}. Credentials: ${printable(credentialsPath())}`);
    });

  program
    .command('logout')
    .description('revoke the tokens of realmgate login at the server (RFC 7009) and delete the credentials file')
    .action(async () => {
      const credentials = readCredentials();
      if (!credentials) {
        printLines('Not signed in.');
        return;
      }
      // The file stays when the server cannot be told, so that logout can be run again.
      await revokeTokens(credentials);
      deleteCredentials();
      printLines(`Signed out of ${printable(credentials.server)}.`);
    });
}
