import { setTimeout as sleep } from 'node:timers/promises';
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import type { MailSettings } from './settings.js';

/** One mail: the same words as plain text and as HTML (src/mail/messages.ts). */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

export interface MailerOptions {
  readonly settings: MailSettings;
  readonly logger: { warn(object: object, message: string): void; error(object: object, message: string): void };
  /** The pauses before each retry of a transient failure; their count is the number of retries. */
  readonly retryDelaysMs?: readonly number[];
  /** How long a connection, the server's greeting and a silent socket are waited for. */
  readonly timeoutsMs?: { readonly connection: number; readonly greeting: number; readonly socket: number };
}

const RETRY_DELAYS_MS = [500, 2_000];
const TIMEOUTS_MS = { connection: 10_000, greeting: 10_000, socket: 30_000 };

/** Failures of the connection itself, which another try may not meet (nodemailer's error codes). */
const TRANSIENT_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNRESET', 'ECONNREFUSED']);

interface SmtpFailure {
  code?: string;
  responseCode?: number;
  command?: string;
}

/** A 4xx reply is the server's "try again later" (RFC 5321 §4.2.1); a 5xx one is final. */
function isTransient(failure: SmtpFailure): boolean {
  if (typeof failure.responseCode === 'number') return failure.responseCode >= 400 && failure.responseCode < 500;
  return failure.code !== undefined && TRANSIENT_CODES.has(failure.code);
}

/**
 * Sends mail through `SMTP_URL`. `send` never throws: a page that mails learns only whether the
 * server took the message, and says what it can. Failures are logged by their SMTP codes alone,
 * never with the message, its recipient or the server's credentials.
 */
export class Mailer {
  private readonly transport: Transporter<SMTPTransport.SentMessageInfo>;
  private readonly retryDelaysMs: readonly number[];
  private readonly sending = new Set<Promise<boolean>>();
  private closed = false;

  constructor(private readonly options: MailerOptions) {
    const { smtp } = options.settings;
    const timeouts = options.timeoutsMs ?? TIMEOUTS_MS;
    this.retryDelaysMs = options.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.transport = nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      ...(smtp.user === undefined ? {} : { auth: { user: smtp.user, pass: smtp.password ?? '' } }),
      connectionTimeout: timeouts.connection,
      greetingTimeout: timeouts.greeting,
      socketTimeout: timeouts.socket,
      logger: false,
      debug: false,
    } satisfies SMTPTransport.Options);
  }

  /** True once the SMTP server accepted the message; false after the retries, or on a final refusal. */
  send(message: MailMessage): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    const sent = this.attempt(message).finally(() => this.sending.delete(sent));
    this.sending.add(sent);
    return sent;
  }

  /** Waits for the mail being sent (a page may not have waited for it), then closes the transport. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled(this.sending);
    this.transport.close();
  }

  private async attempt(message: MailMessage): Promise<boolean> {
    const attempts = this.retryDelaysMs.length + 1;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.transport.sendMail({
          from: this.options.settings.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
        });
        return true;
      } catch (error) {
        const failure = describeFailure(error);
        const transient = isTransient(failure);
        if (!transient || attempt === attempts) {
          this.options.logger.error({ mail: { ...failure, attempt, attempts, transient } }, 'mail not sent');
          return false;
        }
        this.options.logger.warn({ mail: { ...failure, attempt, attempts, transient } }, 'mail not sent, retrying');
        await sleep(this.retryDelaysMs[attempt - 1]);
      }
    }
  }
}

/** What may be logged of a failure: its codes and the SMTP command, not its message (it may quote the recipient). */
function describeFailure(error: unknown): SmtpFailure {
  const { code, responseCode, command } = (error ?? {}) as Record<string, unknown>;
  return {
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof responseCode === 'number' ? { responseCode } : {}),
    ...(typeof command === 'string' ? { command: command.split(' ')[0] } : {}),
  };
}
