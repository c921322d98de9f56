import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { addClientCommands } from './commands/client.js';
import { addEventCommands } from './commands/events.js';
import { addIdentityProviderCommands } from './commands/identity-provider.js';
import { addInitialAccessTokenCommands } from './commands/initial-access-token.js';
import { addJourneyCommands } from './commands/journey.js';
import { addKeyCommands } from './commands/keys.js';
import { addLoginCommands } from './commands/login.js';
import { addMigrateCommand } from './commands/migrate.js';
import { addRealmCommands } from './commands/realm.js';
import { addResourceCommands } from './commands/resource.js';
import { addRoleAndGroupCommands } from './commands/roles.js';
import { addScopeCommands } from './commands/scope.js';
import { addStartCommand } from './commands/start.js';
import { addTokenCommands } from './commands/token.js';
import { addTrustedIssuerCommands } from './commands/trusted-issuer.js';
import { addUserCommands } from './commands/user.js';
import { addWebhookCommands } from './commands/webhook.js';
import { addTextCommands } from './commands/texts.js';

/** Same depth from src/cli and dist/cli. */
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/**
 * The `realmgate` command line. Subcommands are added with `.command()`, so that they inherit
 * exitOverride: main.ts decides every exit code.
 */
export function buildProgram(): Command {
  const program = new Command('realmgate')
    .description(
      'realmgate: run the server, migrate its database, and administer it through the admin API.\n' +
        'Admin commands read REALMGATE_URL (default http://127.0.0.1:9000) and REALMGATE_ADMIN_TOKEN (or ADMIN_TOKEN);\n' +
        'without a token they use the sign-in of `realmgate login --server URL` (a token in the environment wins).',
    )
    .version(version)
    .exitOverride()
    .showHelpAfterError('(add --help for usage)');
  addStartCommand(program);
  addMigrateCommand(program);
  addLoginCommands(program);
  addRealmCommands(program);
  addClientCommands(program);
  addUserCommands(program);
  addScopeCommands(program);
  addRoleAndGroupCommands(program);
  addResourceCommands(program);
  addKeyCommands(program);
  addJourneyCommands(program);
  addIdentityProviderCommands(program);
  addTrustedIssuerCommands(program);
  addInitialAccessTokenCommands(program);
  addEventCommands(program);
  addWebhookCommands(program);
  addTextCommands(program);
  addTokenCommands(program);
  return program;
}
