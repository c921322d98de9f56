import { type Command, Option } from 'commander';
import { ROOT_REALM } from '../../records/realm-names.js';
import { UsageError } from '../errors.js';
import { fields } from '../output.js';
import { print } from '../output-mode.js';
import { type ConnectionOptions, connectionOptions, send, serverUrl } from '../server.js';
import { readStdin } from '../stdin.js';

interface IntrospectOptions extends ConnectionOptions {
  clientId?: string;
  clientSecret?: string;
  clientAuth: 'basic' | 'post';
}

/** RFC 6749 §2.3.1: client id and secret are form-urlencoded before they are joined for Basic. */
const formEncoded = (text: string): string => new URLSearchParams({ v: text }).toString().slice(2);
const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${formEncoded(id)}:${formEncoded(secret)}`).toString('base64')}`;

/** Seconds since the epoch, with the date they stand for. */
const time = (value: unknown): unknown => (typeof value === 'number' ? `${value} (${new Date(value * 1000).toISOString()})` : value);

/**
 * `realmgate token introspect`: the realm's introspection endpoint (RFC 7662), as a client of
 * the realm. The admin API has no introspection of its own (CONTRACT.md §5).
 */
export function addTokenCommands(program: Command): void {
  const token = program.command('token').description('tokens, as a client of a realm sees them');

  connectionOptions(
    token
      .command('introspect')
      .description("whether a token is active, and what it carries (the realm's /introspect, as a confidential client)")
      .argument('<realm>')
      .argument('[token]', 'the token, after -- (one in 64 opaque tokens starts with -); read from standard input when omitted or -')
      .addOption(new Option('--client-id <id>', 'a confidential client of the realm').env('REALMGATE_CLIENT_ID'))
      .addOption(new Option('--client-secret <secret>', 'its secret (prefer the variable: a command line is visible to other users)').env('REALMGATE_CLIENT_SECRET'))
      .addOption(new Option('--client-auth <method>', 'how the client authenticates').choices(['basic', 'post']).default('basic')),
    { adminToken: false },
  ).action(async (realm: string, given: string | undefined, options: IntrospectOptions) => {
    if (!options.clientId || !options.clientSecret) {
      throw new UsageError('introspection is a client call: give --client-id and --client-secret (or REALMGATE_CLIENT_ID and REALMGATE_CLIENT_SECRET)');
    }
    if ((given === undefined || given === '-') && process.stdin.isTTY) throw new UsageError('give the token as an argument, or on standard input');
    const value = given === undefined || given === '-' ? (await readStdin()).trim() : given;
    if (!value) throw new UsageError('the token is empty');

    const form = new URLSearchParams({ token: value });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (options.clientAuth === 'post') {
      form.set('client_id', options.clientId);
      form.set('client_secret', options.clientSecret);
    } else {
      headers.authorization = basic(options.clientId, options.clientSecret);
    }
    const issuerPath = realm === ROOT_REALM ? 'oauth2/' : `oauth2/${encodeURIComponent(realm)}/`;
    const answer = (await send(new URL(`${issuerPath}introspect`, serverUrl(options)), { method: 'POST', headers, body: form.toString() }, {
      unauthorized: 'the client was refused; check --client-id and --client-secret',
    })) as Record<string, unknown>;
    print(options, answer, (result) =>
      fields(Object.entries(result).map(([name, v]) => [name, name === 'exp' || name === 'iat' ? time(v) : v] as const)),
    );
  });
}
