/** The SMTP server that outgoing mail goes through (`SMTP_URL`, CONTRACT.md §1 and §9). */
export interface SmtpServer {
  readonly host: string;
  readonly port: number;
  /** `smtps://`: TLS from the first byte; `smtp://` upgrades with STARTTLS when the server offers it. */
  readonly secure: boolean;
  readonly user: string | undefined;
  /** Not enumerable: a logged or serialized configuration never carries it. */
  readonly password: string | undefined;
}

export interface MailSettings {
  readonly smtp: SmtpServer;
  /** `MAIL_FROM`: the sender of every mail, `address@domain` or `Name <address@domain>`. */
  readonly from: string;
}

/** Thrown with a description that never repeats the URL, which may hold a password. */
export class MailSettingError extends Error {
  override name = 'MailSettingError';
}

const DEFAULT_PORTS = { 'smtp:': 587, 'smtps:': 465 } as const;

/** `smtp://user:pass@host:port` or `smtps://…`; user and password percent-encoded. */
export function parseSmtpUrl(text: string): SmtpServer {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new MailSettingError('expected smtp://user:password@host:port or smtps://…');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new MailSettingError('expected the scheme smtp:// or smtps://');
  if (!url.hostname) throw new MailSettingError('expected a host');
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) {
    throw new MailSettingError('expected no path, query or fragment after host:port');
  }
  let user: string | undefined;
  let password: string | undefined;
  try {
    user = url.username ? decodeURIComponent(url.username) : undefined;
    password = url.password ? decodeURIComponent(url.password) : undefined;
  } catch {
    throw new MailSettingError('expected a percent-encoded user and password');
  }
  if (password !== undefined && user === undefined) throw new MailSettingError('expected a user with the password');
  const server = {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol],
    secure: url.protocol === 'smtps:',
    user,
  };
  return Object.freeze(Object.defineProperty(server, 'password', { value: password, enumerable: false })) as SmtpServer;
}

// One address, alone or after a display name; no line breaks or other control characters.
const MAIL_FROM = /^(?:[^<>\p{Cc}]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/u;

export function parseMailFrom(text: string): string {
  const from = text.trim();
  if (!MAIL_FROM.test(from)) throw new MailSettingError('expected an address such as no-reply@example.com or "Example <no-reply@example.com>"');
  return from;
}
