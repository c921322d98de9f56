import { CliError } from './errors.js';
import { printable } from './output.js';

const TIMEOUT_MS = 30_000;

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
