import { type Command, Option } from 'commander';
import { UsageError } from './errors.js';
import { readCredentials } from './credentials.js';
import { printable } from './output.js';
import { send } from './http-call.js';
import { storedAccessToken } from './sign-in.js';

export { send } from './http-call.js';

export const DEFAULT_URL = 'http://127.0.0.1:9000';

export interface ConnectionOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

/** `--url` and `--json`, and `--token` for the admin API, on a command that talks to the server. */
export function connectionOptions(command: Command, { adminToken = true } = {}): Command {
  command.addOption(new Option('--url <url>', `the server's address [default: ${DEFAULT_URL}]`).env('REALMGATE_URL'));
  if (adminToken) {
    command.addOption(
      new Option('--token <token>', 'admin token; falls back to ADMIN_TOKEN, then to the sign-in of realmgate login (prefer the variables: a command line is visible to other users)').env(
        'REALMGATE_ADMIN_TOKEN',
      ),
    );
  }
  return command.option('--json', "print the server's JSON answer as it is");
}

/** The server's address from --url or REALMGATE_URL: an http(s) URL, perhaps with a path prefix. */
export function serverUrl(options: ConnectionOptions, flag = '--url'): URL {
  const text = options.url || DEFAULT_URL;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag}: expected an http(s) URL such as http://127.0.0.1:9000`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${flag}: expected an http(s) URL such as http://127.0.0.1:9000`);
  if (url.username || url.password) throw new UsageError(`${flag}: credentials do not go in the URL; the admin token goes in --token or REALMGATE_ADMIN_TOKEN`);
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** The admin token from --token, REALMGATE_ADMIN_TOKEN or ADMIN_TOKEN; undefined when none is given. Never printed, not even in an error. */
export function givenAdminToken(options: ConnectionOptions): string | undefined {
  const token = (options.token || process.env.ADMIN_TOKEN || '').trim();
  if (!token) return undefined;
  if (!/^[\x21-\x7E]+$/.test(token)) throw new UsageError('the admin token holds characters an HTTP header cannot carry');
  return token;
}

function signedInServer(): string | undefined {
  try {
    return readCredentials()?.server;
  } catch {
    return undefined;
  }
}

/** The admin API (CONTRACT.md §5) of one server. */
export class AdminApi {
  constructor(
    private readonly server: URL,
    private readonly token: () => Promise<string>,
    private readonly unauthorized: string,
  ) {}

  /**
   * A given admin token wins (CONTRACT.md §14: ADMIN_TOKEN keeps working); else the credentials
   * of `realmgate login`, which go to the server they were given by alone: a --url or
   * REALMGATE_URL naming another is refused rather than handed the token.
   */
  static from(options: ConnectionOptions): AdminApi {
    const token = givenAdminToken(options);
    if (token) {
      // Without --url, the server signed in to is still the one meant.
      const signedIn = options.url ? undefined : signedInServer();
      const server = signedIn ? new URL(signedIn) : serverUrl(options);
      return new AdminApi(server, () => Promise.resolve(token), 'the admin token was refused; check REALMGATE_ADMIN_TOKEN or --token');
    }
    const credentials = readCredentials();
    if (!credentials) throw new UsageError('an admin token is needed: set REALMGATE_ADMIN_TOKEN (or give --token), or sign in with realmgate login --server URL');
    const server = options.url ? serverUrl(options) : new URL(credentials.server);
    if (server.href !== credentials.server) {
      throw new UsageError(`you are signed in to ${printable(credentials.server)}, not ${printable(server.href)}: run realmgate login --server ${printable(server.href)}, or set REALMGATE_ADMIN_TOKEN`);
    }
    return new AdminApi(server, () => storedAccessToken(credentials), `the admin API refused your sign-in: run realmgate login --server ${printable(credentials.server)} again`);
  }

  get(path: string): Promise<unknown> {
    return this.call('GET', path);
  }

  post(path: string, body?: unknown): Promise<unknown> {
    return this.call('POST', path, body);
  }

  patch(path: string, body: unknown): Promise<unknown> {
    return this.call('PATCH', path, body);
  }

  put(path: string, body: unknown): Promise<unknown> {
    return this.call('PUT', path, body);
  }

  delete(path: string): Promise<unknown> {
    return this.call('DELETE', path);
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = { authorization: `Bearer ${await this.token()}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return send(
      new URL(`admin/${path}`, this.server),
      { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
      { unauthorized: this.unauthorized },
    );
  }
}

/** `/admin/…` paths from their segments, each percent-encoded. */
export const adminPath = (...segments: string[]): string => segments.map(encodeURIComponent).join('/');
