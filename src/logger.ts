import pino, { type Logger, type LoggerOptions } from 'pino';

/**
 * Secrets never reach the log: request bodies are not logged at all, URLs are logged with
 * only their safe query parameters (src/http/request-log.ts), and these fields are censored
 * in anything else that is. (Not `code`: errors carry their SQLSTATE or errno there.)
 */
const SECRET_FIELDS = [
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
];

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'res.headers["set-cookie"]',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`),
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { service: 'realmgate' },
  };
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}
