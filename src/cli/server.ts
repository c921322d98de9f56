import { type Command, Option } from 'commander';
import { CliError, UsageError } from './errors.js';
import { readCredentials } from './credentials.js';
import { printable } from './output.js';
import { storedAccessToken } from './sign-in.js';

export const DEFAULT_URL = 'http://127.0.0.1:9000';
const TIMEOUT_MS = 30_000;

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

/**
 * One request: the JSON answer of a 2xx; anything else a CliError that says what went wrong
 * (the server's `error` and `error_description`, or why no answer came).
 */
export async function send(url: URL, init: RequestInit, hints: { unauthorized?: string } = {}): Promise<unknown> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
    text = await response.text();
  } catch (error) {
    throw unreachable(url, error);
  }
  const body = parseJson(text);
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get('location');
    throw new CliError(`${shown(url)} redirects (${response.status}${location ? ` to ${printable(location.slice(0, 200))}` : ''}): give the address it redirects to as --url`);
  }
  if (!response.ok) throw refusal(url, response, body, hints);
  if (body === undefined && text !== '') throw new CliError(`${shown(url)} did not answer JSON: is --url the address of a realmgate server?`);
  return body;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The URL without query or fragment (it carries no credentials: serverUrl refuses them). */
const shown = (url: URL): string => printable(`${url.origin}${url.pathname}`);

function unreachable(url: URL, error: unknown): CliError {
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new CliError(`no answer from ${url.origin} within ${TIMEOUT_MS / 1000} s`);
  }
  // Only the code of a network failure is shown: other messages may repeat a header value.
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
  return new CliError(`cannot reach the server at ${url.origin}${code}: is it running? Set its address with --url or REALMGATE_URL`);
}

function refusal(url: URL, response: Response, body: unknown, hints: { unauthorized?: string }): CliError {
  const { error, error_description: description } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof error !== 'string') {
    const hint = response.status === 404 ? ': is --url the address of a realmgate server?' : '';
    return new CliError(`${shown(url)} answered ${response.status} ${printable(response.statusText)}${hint}`);
  }
  const said = printable(typeof description === 'string' ? `${error}: ${description}` : error);
  if (response.status === 401 && hints.unauthorized) return new CliError(`${hints.unauthorized} (${said})`);
  return new CliError(said);
}
