import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { fields, notice } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';
import { collect, given } from './input.js';

interface CreateOptions extends ConnectionOptions {
  expiresIn?: string;
  grantType: string[];
  scope?: string;
  authorizationDetailsType: string[];
}

/** `realmgate initial-access-token create`: POST /admin/realms/{realm}/initial-access-tokens (RFC 7591 §3). */
export function addInitialAccessTokenCommands(program: Command): void {
  const token = program.command('initial-access-token').description('tokens that let one client register itself at {issuer}/connect/register');

  connectionOptions(
    token
      .command('create')
      .description("a token for one dynamic registration (shown once); --grant-type, --scope and --authorization-details-type allow it more than the realm's registration policy")
      .argument('<realm>')
      .option('--expires-in <seconds>', 'its lifetime, at most 30 days [default: 86400]')
      .option('--grant-type <type>', "a grant type beyond the realm's registration_grant_types (repeatable)", collect, [])
      .option('--scope <scope>', "scopes beyond the realm's registration_scopes, space-separated")
      .option('--authorization-details-type <type>', "an authorization_details type of the realm the client may list (RFC 9396; repeatable)", collect, []),
  ).action(async (realm: string, options: CreateOptions) => {
    if (options.expiresIn !== undefined && !/^\d{1,10}$/.test(options.expiresIn)) throw new UsageError('--expires-in: expected a whole number of seconds');
    const body = given({
      expires_in: options.expiresIn === undefined ? undefined : Number(options.expiresIn),
      grant_types: options.grantType.length > 0 ? options.grantType : undefined,
      scope: options.scope,
      authorization_details_types: options.authorizationDetailsType.length > 0 ? options.authorizationDetailsType : undefined,
    });
    const answer = (await AdminApi.from(options).post(adminPath('realms', realm, 'initial-access-tokens'), body)) as { token: string; expires_in: number };
    print(options, answer, ({ token: value, expires_in: expiresIn }) => {
      notice('The token is shown this once; it serves one registration, as the bearer token of {issuer}/connect/register.');
      return fields([
        ['expires_in', expiresIn],
        ['token', value],
      ]);
    });
  });
}
