import { setTimeout as delay } from 'node:timers/promises';
import { CLI_CLIENT_ID } from '../admin/cli-client.js';
import { type Credentials, readCredentials, withCredentialsLock, writeCredentials } from './credentials.js';
import { CliError } from './errors.js';
import { printable } from './output.js';
import { send } from './http-call.js';

/**
 * The command line as a public client of the `root` realm (CONTRACT.md §14): it signs a person
 * in with the device authorization grant (RFC 8628), keeps the access token fresh with the
 * refresh token, and revokes both at logout (RFC 7009). Every call goes to the server's address
 * the person gave, under `oauth2/` (the root realm's issuer), as `token introspect` does.
 */

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** An access token this close to its expiry is refreshed before a call. */
const REFRESH_MARGIN_SECONDS = 60;

const rootEndpoint = (server: URL | string, path: string): URL => new URL(`oauth2/${path}`, server);
const now = (): number => Math.floor(Date.now() / 1000);

interface TokenAnswer {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
}

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval?: number;
}

/** A form POST that answers the status and the JSON body, refusals included (the device flow reads its errors). */
async function postForm(url: URL, form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(30_000),
    });
    text = await response.text();
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown } }).cause;
    throw new CliError(`cannot reach the server at ${url.origin}${typeof cause?.code === 'string' ? ` (${cause.code})` : ''}`);
  }
  let body: unknown;
  try {
    // RFC 7009 §2.2: a revocation answers 200 with no body.
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null) throw new CliError(`${url.origin}${url.pathname} answered ${response.status} without JSON: is this a realmgate server?`);
  return { status: response.status, body: body as Record<string, unknown> };
}

const described = (body: Record<string, unknown>): string =>
  printable(typeof body.error_description === 'string' ? `${String(body.error)}: ${body.error_description}` : String(body.error));

/** The admin resource of the server: `{BASE_URL}/admin`, from the root realm's issuer `{BASE_URL}/oauth2`. */
export async function adminResourceOf(server: URL): Promise<string> {
  const discovery = (await send(rootEndpoint(server, '.well-known/openid-configuration'), { method: 'GET', headers: { accept: 'application/json' } })) as { issuer?: unknown };
  const issuer = typeof discovery?.issuer === 'string' ? discovery.issuer : '';
  if (!issuer.endsWith('/oauth2')) throw new CliError(`${server.origin} does not describe a realmgate root realm: is --server its address?`);
  return `${issuer.slice(0, -'/oauth2'.length)}/admin`;
}

/** RFC 8628 §3.1: a device code, and the user code the person types at the verification URI. */
export async function startDeviceAuthorization(server: URL): Promise<DeviceAuthorization> {
  const { status, body } = await postForm(rootEndpoint(server, 'device/code'), { client_id: CLI_CLIENT_ID, scope: 'openid' });
  if (status !== 200) throw new CliError(`the server refused to start a sign-in (${described(body)})`);
  return body as unknown as DeviceAuthorization;
}

/**
 * RFC 8628 §3.4, §3.5: polls until the person answers, at the interval asked (5 seconds more
 * after each slow_down), and no longer than the device code lives. The token is asked for the
 * admin resource (RFC 8707).
 */
export async function pollForTokens(server: URL, device: DeviceAuthorization, resource: string): Promise<Credentials> {
  let interval = Math.max(1, device.interval ?? 5);
  const deadline = Date.now() + device.expires_in * 1000;
  while (Date.now() < deadline) {
    await delay(interval * 1000);
    const form = { grant_type: DEVICE_GRANT, device_code: device.device_code, client_id: CLI_CLIENT_ID, resource };
    const { status, body } = await postForm(rootEndpoint(server, 'access_token'), form);
    if (status === 200) return credentialsOf(server, resource, body as unknown as TokenAnswer);
    if (body.error === 'authorization_pending') continue;
    if (body.error === 'slow_down') {
      interval += 5;
      continue;
    }
    if (body.error === 'access_denied') throw new CliError('the sign-in was denied');
    if (body.error === 'expired_token') break;
    throw new CliError(`the sign-in failed (${described(body)})`);
  }
  throw new CliError('the code expired before the sign-in was approved: run realmgate login again');
}

function credentialsOf(server: URL | string, resource: string, answer: TokenAnswer, previous?: Credentials): Credentials {
  if (typeof answer.access_token !== 'string') throw new CliError('the server answered no access token');
  const refreshToken = answer.refresh_token ?? previous?.refresh_token;
  return {
    server: String(server),
    client_id: CLI_CLIENT_ID,
    resource,
    access_token: answer.access_token,
    expires_at: now() + (answer.expires_in ?? 300),
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
  };
}

const fresh = (credentials: Credentials): boolean => credentials.expires_at - REFRESH_MARGIN_SECONDS > now();

/**
 * The stored access token for `server`, refreshed first when it is about to expire. Under the
 * credentials lock, the file is read again: another command may have refreshed meanwhile.
 */
export async function storedAccessToken(credentials: Credentials): Promise<string> {
  if (fresh(credentials)) return credentials.access_token;
  return withCredentialsLock(async () => {
    const current = readCredentials();
    if (!current || current.server !== credentials.server) throw new CliError('the sign-in was ended by another command: run realmgate login again');
    if (fresh(current)) return current.access_token;
    const again = `run realmgate login --server ${printable(current.server)} again`;
    if (!current.refresh_token) throw new CliError(`the access token has expired: ${again}`);
    const { status, body } = await postForm(rootEndpoint(current.server, 'access_token'), {
      grant_type: 'refresh_token',
      refresh_token: current.refresh_token,
      client_id: current.client_id,
    });
    if (status !== 200) throw new CliError(`the sign-in has ended (${described(body)}): ${again}`);
    const refreshed = credentialsOf(current.server, current.resource, body as unknown as TokenAnswer, current);
    writeCredentials(refreshed);
    return refreshed.access_token;
  });
}

/** RFC 7009: the refresh token (and with it the grant), then the access token. Any refusal throws. */
export async function revokeTokens(credentials: Credentials): Promise<void> {
  const tokens: Array<[string, string]> = [
    ...(credentials.refresh_token ? [[credentials.refresh_token, 'refresh_token'] as [string, string]] : []),
    [credentials.access_token, 'access_token'],
  ];
  for (const [token, hint] of tokens) {
    const { status, body } = await postForm(rootEndpoint(credentials.server, 'token/revoke'), { token, token_type_hint: hint, client_id: credentials.client_id });
    if (status !== 200) throw new CliError(`the server did not revoke the ${hint.replace('_', ' ')} (${described(body)})`);
  }
}
