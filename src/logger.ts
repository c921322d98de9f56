import pino, { type Logger, type LoggerOptions } from 'pino';

/**
 * Secrets never reach the log: request bodies are not logged at all, URLs are logged with
 * only their safe query parameters (src/http/request-log.ts), and these fields are censored
 * in anything else that is, at the top of a log object and one level down. (Not `code`:
 * errors carry their SQLSTATE or errno there.)
 */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'password',
  'client_secret',
  'client_assertion',
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'code_verifier',
  'assertion',
  'subject_token',
  'actor_token',
  'device_code',
  'auth_req_id',
  'user_code',
  'login_hint_token',
  'id_token_hint',
  'registration_access_token',
]);

/** Headers that carry credentials, censored in any `headers` logged at the top or one level down. */
const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['authorization', 'cookie', 'set-cookie']);

const CENSOR = '[redacted]';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/** A copy of `object` with the names in `names` censored, or `object` itself when none is there. */
function censorNames(object: Record<string, unknown>, names: ReadonlySet<string>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const name in object) {
    if (names.has(name) && object[name] !== undefined) (copy ??= { ...object })[name] = CENSOR;
  }
  return copy ?? object;
}

/** One level of a log object: its secret-named fields, and the credentials of its `headers`. */
function censorLevel(object: Record<string, unknown>): Record<string, unknown> {
  let censored = censorNames(object, SECRET_FIELDS);
  if (isPlainObject(censored.headers)) {
    const headers = censorNames(censored.headers, CREDENTIAL_HEADERS);
    if (headers !== censored.headers) censored = { ...censored, headers };
  }
  return censored;
}

/**
 * pino's `formatters.log`: the log object, censored. By hand rather than with pino's `redact`
 * paths, which are matched anew for every line: with a request line and an audit line per
 * token, they took about a tenth of the token endpoint's CPU. Values that are not plain
 * objects (errors, for pino's `err` serializer) are left whole.
 */
export function censorSecrets(object: Record<string, unknown>): Record<string, unknown> {
  let censored = censorLevel(object);
  for (const name in censored) {
    const value = censored[name];
    if (!isPlainObject(value)) continue;
    const inner = censorLevel(value);
    if (inner !== value) censored = { ...censored, [name]: inner };
  }
  return censored;
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    formatters: { log: censorSecrets },
    base: { service: 'realmgate' },
  };
}

/**
 * The process's logger writes to stdout asynchronously: lines written while a write is under
 * way go together in the next, off the event loop, rather than one blocking write each (a
 * request line and an audit line per token). pino flushes what is pending when the process
 * exits, graceful stop or crash alike; only a SIGKILL loses the last instant's lines.
 */
export function createLogger(level: string, destination: pino.DestinationStream = pino.destination({ dest: 1, sync: false })): Logger {
  return pino(loggerOptions(level), destination);
}
