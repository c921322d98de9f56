import { z } from 'zod';
import { OutboundAllowList } from './http/address-ranges.js';
import { type TrustedProxies, parseTrustedProxies } from './http/trusted-proxies.js';
import { USERNAME } from './authn/username.js';
import { type MailSettings, type SmtpServer, parseMailFrom, parseSmtpUrl } from './mail/settings.js';

/** The environment variables of CONTRACT.md §1, parsed once into a frozen Config. */
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

const port = z
  .string()
  .regex(/^\d{1,5}$/, 'expected a port number')
  .transform(Number)
  .pipe(z.number().min(1, 'expected a port number from 1 to 65535').max(65535, 'expected a port number from 1 to 65535'));

const publicOrigin = z
  .url({ protocol: /^https?$/, error: 'expected an http(s) origin such as https://auth.example.com' })
  .transform((value) => new URL(value))
  .refine((url) => (url.pathname === '/' || url.pathname === '') && !url.search && !url.hash, {
    error: 'expected an origin without path, query or fragment',
  })
  .transform((url) => url.origin);

/** `TRUST_PROXY`: `false` (or unset), or the load balancers' addresses and CIDR ranges; `true` is refused. */
const trustedProxies = z
  .string()
  .optional()
  .transform((value, context): TrustedProxies => {
    const text = value?.trim() ?? '';
    if (text === '' || text === 'false' || text === '0') return false;
    try {
      return Object.freeze(parseTrustedProxies(text));
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

const masterKey = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/, 'expected 32 bytes encoded as base64url (43 characters)')
  .transform((value) => Buffer.from(value, 'base64url'));

/** `OUTBOUND_ALLOW`: comma-separated CIDR ranges, addresses or host names that the SSRF guard lets outbound fetches reach. */
const outboundAllow = z
  .string()
  .optional()
  .transform((value, context): readonly string[] => {
    const entries = (value ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
    try {
      new OutboundAllowList(entries);
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
    return Object.freeze(entries);
  });

/** A variable read by `parse`, whose errors (never the value) become the variable's problem. */
const parsedText = <T>(parse: (text: string) => T) =>
  optionalText.transform((value, context): T | undefined => {
    if (value === undefined) return undefined;
    try {
      return parse(value);
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

const EnvSchema = z.object({
  PORT: optionalText.pipe(port.optional()).transform((value) => value ?? 9000),
  ADMIN_PORT: optionalText.pipe(port.optional()),
  HOST: z.string().min(1).default('127.0.0.1'),
  BASE_URL: optionalText.pipe(publicOrigin.optional()),
  DATABASE_URL: optionalText.pipe(
    z
      .url({ protocol: /^postgres(ql)?$/, error: 'expected a postgres:// URL' })
      .optional(),
  ),
  DATA_DIR: z.string().min(1).default('./data'),
  ADMIN_TOKEN: optionalText.pipe(z.string().min(16, 'expected at least 16 characters').optional()),
  ADMIN_USER: optionalText,
  ADMIN_PASSWORD: optionalText,
  MASTER_KEY: optionalText.pipe(masterKey.optional()),
  TRUST_PROXY: trustedProxies,
  CLIENT_CERT_HEADER: optionalText.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'expected an HTTP header name')
      .transform((name) => name.toLowerCase())
      .optional(),
  ),
  TLS_CERT: optionalText,
  TLS_KEY: optionalText,
  TLS_CA: optionalText,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  OUTBOUND_ALLOW: outboundAllow,
  SMTP_URL: parsedText<SmtpServer>(parseSmtpUrl),
  MAIL_FROM: parsedText(parseMailFrom),
  LOCALES_DIR: optionalText,
});

export interface Config {
  readonly port: number;
  /** `ADMIN_PORT`: the port that alone serves /admin and /metrics (src/http/admin-port.ts); unset, `port` serves them. */
  readonly adminPort: number | undefined;
  readonly host: string;
  /** Public origin; every issuer and public URL derives from it, never from the Host header. */
  readonly baseUrl: string;
  readonly databaseUrl: string | undefined;
  /** Embedded store location, or `memory://`. */
  readonly dataDir: string;
  readonly adminToken: string | undefined;
  /** `ADMIN_USER` and `ADMIN_PASSWORD`: the first administrator, made once (src/admin/first-administrator.ts). */
  readonly firstAdministrator: FirstAdministrator | undefined;
  readonly masterKey: Buffer | undefined;
  /** `TRUST_PROXY`: the peers whose `X-Forwarded-*` and client certificate header are believed. */
  readonly trustProxy: TrustedProxies;
  readonly clientCertHeader: string | undefined;
  readonly tls: { readonly cert: string; readonly key: string; readonly ca: string | undefined } | undefined;
  /**
   * `TLS_CA`: the CA bundle (path) that `tls_client_auth` certificates must chain to, whether
   * they arrive over this server's TLS or from a trusted load balancer's header.
   */
  readonly clientCa: string | undefined;
  readonly logLevel: string;
  /** `OUTBOUND_ALLOW`: what outbound fetches may reach despite the SSRF guard (src/http/outbound-fetch.ts). */
  readonly outboundAllow: readonly string[];
  /** `SMTP_URL` and `MAIL_FROM`: outgoing mail (src/mail/), or none without `SMTP_URL`. */
  readonly mail: MailSettings | undefined;
  /** `LOCALES_DIR`: a directory of `<locale>.json` catalogues read at start (src/pages/i18n/json-catalogues.ts); none: the shipped languages. */
  readonly localesDir: string | undefined;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface FirstAdministrator {
  readonly username: string;
  readonly password: string;
}

/** `ADMIN_USER` and `ADMIN_PASSWORD` go together; the password is checked against the root realm's policy when used. */
function firstAdministratorOf(username: string | undefined, password: string | undefined): FirstAdministrator | undefined {
  if (username === undefined && password === undefined) return undefined;
  if (username === undefined || password === undefined) {
    throw new ConfigError(`invalid configuration: ${username === undefined ? 'ADMIN_USER' : 'ADMIN_PASSWORD'}: ADMIN_USER and ADMIN_PASSWORD go together`);
  }
  if (!USERNAME.test(username)) throw new ConfigError('invalid configuration: ADMIN_USER: must be 1 to 255 letters, digits or . _ @ + -');
  return Object.freeze({ username, password });
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  if (Boolean(e.TLS_CERT) !== Boolean(e.TLS_KEY)) {
    throw new ConfigError(`invalid configuration: ${e.TLS_CERT ? 'TLS_KEY' : 'TLS_CERT'}: TLS_CERT and TLS_KEY go together`);
  }
  if (e.ADMIN_PORT !== undefined && e.ADMIN_PORT === e.PORT) {
    throw new ConfigError(`invalid configuration: ADMIN_PORT: must differ from PORT (${e.PORT})`);
  }
  if (e.DATABASE_URL && !e.MASTER_KEY) {
    throw new ConfigError('invalid configuration: MASTER_KEY: required with DATABASE_URL (32 bytes, base64url)');
  }
  if (e.SMTP_URL && !e.MAIL_FROM) {
    throw new ConfigError('invalid configuration: MAIL_FROM: required with SMTP_URL (the sender, e.g. no-reply@example.com)');
  }
  const scheme = e.TLS_CERT ? 'https' : 'http';
  return Object.freeze({
    port: e.PORT,
    adminPort: e.ADMIN_PORT,
    host: e.HOST,
    baseUrl: e.BASE_URL ?? `${scheme}://localhost:${e.PORT}`,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    adminToken: e.ADMIN_TOKEN,
    firstAdministrator: firstAdministratorOf(e.ADMIN_USER, e.ADMIN_PASSWORD),
    masterKey: e.MASTER_KEY,
    trustProxy: e.TRUST_PROXY,
    clientCertHeader: e.CLIENT_CERT_HEADER,
    tls: e.TLS_CERT && e.TLS_KEY ? Object.freeze({ cert: e.TLS_CERT, key: e.TLS_KEY, ca: e.TLS_CA }) : undefined,
    clientCa: e.TLS_CA,
    logLevel: e.LOG_LEVEL,
    outboundAllow: e.OUTBOUND_ALLOW,
    mail: e.SMTP_URL && e.MAIL_FROM ? Object.freeze({ smtp: e.SMTP_URL, from: e.MAIL_FROM }) : undefined,
    localesDir: e.LOCALES_DIR,
  });
}
