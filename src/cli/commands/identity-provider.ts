import type { Command } from 'commander';
import { parseAssignments } from '../assignments.js';
import { UsageError } from '../errors.js';
import { notice, objectFields, printLines, printable, table } from '../output.js';
import { print } from '../output-mode.js';
import { AdminApi, type ConnectionOptions, adminPath, connectionOptions } from '../server.js';
import { readStdin } from '../stdin.js';
import { given, merged } from './input.js';

interface ProviderView extends Record<string, unknown> {
  alias: string;
  issuer: string;
  client_id: string;
  display_name?: string;
  scope: string;
  username_claim: string;
  link_by_verified_email: boolean;
  redirect_uri: string;
}

interface RecordOptions extends ConnectionOptions {
  issuer?: string;
  clientId?: string;
  clientSecret?: string;
  clientSecretStdin?: boolean;
  scope?: string;
  displayName?: string;
  usernameClaim?: string;
  linkByVerifiedEmail?: boolean;
}

/** The fields a person looks for first; the others follow in the server's order. */
const FIRST_FIELDS = ['alias', 'display_name', 'issuer', 'client_id', 'redirect_uri'];

function providerFields(provider: ProviderView): string {
  const first = Object.fromEntries(FIRST_FIELDS.filter((name) => Object.hasOwn(provider, name)).map((name) => [name, provider[name]]));
  return objectFields({ ...first, ...provider });
}

/** The options both create and update take; the secret is never an argument of its own name. */
function recordOptions(command: Command): Command {
  return command
    .option('--issuer <url>', "the provider's issuer identifier (https); its discovery document is {issuer}/.well-known/openid-configuration")
    .option('--client-id <id>', "the realm's client id at the provider")
    .option('--client-secret-stdin', "read the realm's client secret at the provider from standard input (its one final line break dropped)")
    .option('--client-secret <secret>', 'the client secret (visible to other users of this machine: prefer --client-secret-stdin)')
    .option('--scope <scope>', 'what to ask of the provider, space-separated, openid among them [default: openid email profile]')
    .option('--display-name <name>', "what the sign-in page's button says (default: the alias; display_name=null clears it)")
    .option('--username-claim <claim>', "the provider's claim a new person's username is made from [default: preferred_username]")
    .option('--link-by-verified-email', 'link a new upstream account to the one person with its email, when the provider says it is verified')
    .option('--no-link-by-verified-email', 'make a new person for every new upstream account (the default)');
}

async function secretOf(options: RecordOptions): Promise<string | undefined> {
  if (options.clientSecretStdin && options.clientSecret !== undefined) throw new UsageError('give the client secret one way: --client-secret-stdin or --client-secret');
  if (options.clientSecretStdin) return readStdin();
  return options.clientSecret;
}

/** The record fields the options and the `field=value` arguments set. */
async function bodyOf(options: RecordOptions, assignments: string[]): Promise<Record<string, unknown>> {
  const fromArguments = parseAssignments(assignments, 'field');
  if (Object.hasOwn(fromArguments, 'client_secret')) {
    throw new UsageError('the client secret goes in --client-secret-stdin (or --client-secret), not client_secret=value');
  }
  const fromOptions = given({
    issuer: options.issuer,
    client_id: options.clientId,
    client_secret: await secretOf(options),
    scope: options.scope,
    display_name: options.displayName,
    username_claim: options.usernameClaim,
    link_by_verified_email: options.linkByVerifiedEmail,
  });
  return merged(fromOptions, fromArguments);
}

/** `realmgate identity-provider list|get|create|update|delete`: /admin/realms/{realm}/identity-providers (CONTRACT.md §10). */
export function addIdentityProviderCommands(program: Command): void {
  const provider = program
    .command('identity-provider')
    .description("the other OpenID providers a realm's people sign in through; the client secret is write-only");

  connectionOptions(provider.command('list').description("a realm's identity providers").argument('<realm>')).action(
    async (realm: string, options: ConnectionOptions) => {
      const providers = (await AdminApi.from(options).get(adminPath('realms', realm, 'identity-providers'))) as ProviderView[];
      print(options, providers, (list) =>
        table<ProviderView>(
          [
            ['alias', (p) => p.alias],
            ['display_name', (p) => p.display_name],
            ['issuer', (p) => p.issuer],
            ['client_id', (p) => p.client_id],
            ['link_by_verified_email', (p) => p.link_by_verified_email],
          ],
          list,
        ),
      );
    },
  );

  connectionOptions(provider.command('get').alias('show').description('an identity provider, with the redirect URI to register at it').argument('<realm>').argument('<alias>')).action(
    async (realm: string, alias: string, options: ConnectionOptions) => {
      print(options, (await AdminApi.from(options).get(adminPath('realms', realm, 'identity-providers', alias))) as ProviderView, providerFields);
    },
  );

  connectionOptions(
    recordOptions(
      provider
        .command('create')
        .description('add an OpenID provider (--issuer, --client-id and the client secret are needed); register the redirect URI it prints at the provider')
        .argument('<realm>')
        .argument('<alias>', 'its name in the realm: a-z, 0-9, _ and -; the redirect URI is {issuer}/broker/{alias}/callback')
        .argument('[field=value...]', 'more of the record as the admin API names it, each value JSON where it parses as JSON'),
    ),
  ).action(async (realm: string, alias: string, assignments: string[], options: RecordOptions) => {
    const body: Record<string, unknown> = { alias, kind: 'oidc', ...(await bodyOf(options, assignments)) };
    if (body.client_secret === undefined) throw new UsageError("the realm's client secret at the provider is needed: pipe it in with --client-secret-stdin (or give --client-secret)");
    const created = (await AdminApi.from(options).post(adminPath('realms', realm, 'identity-providers'), body)) as ProviderView;
    print(options, created, (answer) => {
      notice(`Register ${printable(answer.redirect_uri)} as a redirect URI of client ${printable(answer.client_id)} at the provider.`);
      return providerFields(answer);
    });
  });

  connectionOptions(
    recordOptions(
      provider
        .command('update')
        .description('change fields of an identity provider (the others stay; a new client secret replaces the stored one)')
        .argument('<realm>')
        .argument('<alias>')
        .argument('[field=value...]', 'fields of the record, each value JSON where it parses as JSON, e.g. display_name=null'),
    ),
  ).action(async (realm: string, alias: string, assignments: string[], options: RecordOptions) => {
    const patch = await bodyOf(options, assignments);
    if (Object.keys(patch).length === 0) throw new UsageError('name at least one field to change: an option, or field=value');
    const updated = (await AdminApi.from(options).patch(adminPath('realms', realm, 'identity-providers', alias), patch)) as ProviderView;
    print(options, updated, providerFields);
  });

  connectionOptions(
    provider
      .command('delete')
      .description('delete an identity provider: its button leaves the sign-in page, and the links of people to their accounts there are removed')
      .argument('<realm>')
      .argument('<alias>'),
  ).action(async (realm: string, alias: string, options: ConnectionOptions) => {
    await AdminApi.from(options).delete(adminPath('realms', realm, 'identity-providers', alias));
    if (!options.json) printLines(`Identity provider ${printable(alias)} of ${printable(realm)} deleted.`);
  });
}
