import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { type MailSettings, parseSmtpUrl } from '../../src/mail/settings.js';

/** A mail as the SMTP server received it: its envelope, headers, and text and HTML parts decoded. */
export interface ReceivedMail {
  /** Envelope recipients. */
  readonly to: string[];
  readonly headers: ReadonlyMap<string, string>;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly raw: string;
}

export interface TestMailServer {
  /** `smtp://[user:password@]127.0.0.1:port` */
  readonly url: string;
  /** What `SMTP_URL` and `MAIL_FROM` would configure: for `startTestApp({ mail })` or a Mailer. */
  readonly settings: MailSettings;
  readonly received: ReceivedMail[];
  /** The first mail to `address` that no earlier call took, waiting for it to arrive. */
  nextMail(address: string, timeoutMs?: number): Promise<ReceivedMail>;
  /** The next RCPT commands are answered with these reply codes, one each (451: try later, 550: refused). */
  refuseNext(...replyCodes: number[]): void;
  close(): Promise<void>;
}

export const TEST_MAIL_FROM = 'Realmgate Tests <no-reply@auth.test>';

/** A real SMTP server on loopback (no TLS; with `auth`, it asks for that user and password). */
export async function startMailServer(options: { auth?: { user: string; password: string } } = {}): Promise<TestMailServer> {
  const received: ReceivedMail[] = [];
  const unclaimed: ReceivedMail[] = [];
  const waiting: { address: string; resolve: (mail: ReceivedMail) => void }[] = [];
  const refusals: number[] = [];
  const { auth } = options;

  const deliver = (mail: ReceivedMail) => {
    received.push(mail);
    const waiter = waiting.find((candidate) => mail.to.includes(candidate.address));
    if (!waiter) return void unclaimed.push(mail);
    waiting.splice(waiting.indexOf(waiter), 1);
    waiter.resolve(mail);
  };

  const server = new SMTPServer({
    disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(credentials, _session, callback) {
      if (auth && credentials.username === auth.user && credentials.password === auth.password) return callback(null, { user: auth.user });
      callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(_address, _session, callback) {
      const code = refusals.shift();
      if (code === undefined) return callback();
      callback(Object.assign(new Error(code < 500 ? 'Try again later' : 'Mailbox unavailable'), { responseCode: code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((address) => address.address.toLowerCase());
        deliver(parseMail(to, Buffer.concat(chunks).toString('utf8')));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  const credentials = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.password)}@` : '';
  const url = `smtp://${credentials}127.0.0.1:${port}`;

  return {
    url,
    settings: { smtp: parseSmtpUrl(url), from: TEST_MAIL_FROM },
    received,
    nextMail(address, timeoutMs = 10_000) {
      const wanted = address.toLowerCase();
      const ready = unclaimed.find((mail) => mail.to.includes(wanted));
      if (ready) {
        unclaimed.splice(unclaimed.indexOf(ready), 1);
        return Promise.resolve(ready);
      }
      return new Promise((resolve, reject) => {
        const waiter = { address: wanted, resolve: (mail: ReceivedMail) => (clearTimeout(timer), resolve(mail)) };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(waiter), 1);
          reject(new Error(`no mail to ${address} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.push(waiter);
      });
    },
    refuseNext(...replyCodes) {
      refusals.push(...replyCodes);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Just enough MIME for the mails the server sends: headers, and the text/plain and text/html parts. */
export function parseMail(to: string[], raw: string): ReceivedMail {
  const { headers, body } = splitEntity(raw);
  const parts = new Map<string, string>();
  collectParts(headers, body, parts);
  return { to, headers, subject: decodeWords(headers.get('subject') ?? ''), text: parts.get('text/plain') ?? '', html: parts.get('text/html') ?? '', raw };
}

function splitEntity(entity: string): { headers: Map<string, string>; body: string } {
  const end = entity.indexOf('\r\n\r\n');
  const head = end === -1 ? entity : entity.slice(0, end);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: end === -1 ? '' : entity.slice(end + 4) };
}

function collectParts(headers: Map<string, string>, body: string, parts: Map<string, string>): void {
  const contentType = headers.get('content-type') ?? 'text/plain';
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (type.startsWith('multipart/') && boundary) {
    const sections = body.split(`--${boundary}`).slice(1);
    for (const section of sections) {
      if (section.startsWith('--')) break;
      const part = splitEntity(section.replace(/^\r\n/, ''));
      collectParts(part.headers, part.body.replace(/\r\n$/, ''), parts);
    }
    return;
  }
  // Lines end in CRLF on the wire; the tests read them as JavaScript strings do.
  if (!parts.has(type)) parts.set(type, decodeBody(body, headers.get('content-transfer-encoding') ?? '7bit').replace(/\r\n/g, '\n'));
}

function decodeBody(body: string, encoding: string): string {
  switch (encoding.toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable':
      return decodeQuotedPrintable(body.replace(/=\r\n/g, ''));
    default:
      return body;
  }
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text[i] === '=' ? /^[0-9A-F]{2}$/i.exec(text.slice(i + 1, i + 3))?.[0] : undefined;
    if (hex) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) in a header. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?[^?]+\?([QB])\?([^?]*)\?=/gi, (_word, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}
