import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { Mailer } from '../../src/mail/mailer.js';
import { passwordResetMail, realmLabel, verificationMail } from '../../src/mail/messages.js';
import { parseSmtpUrl } from '../../src/mail/settings.js';
import { freePort } from '../support/app.js';
import { TEST_MAIL_FROM, type TestMailServer, startMailServer } from '../support/mail.js';

const SMTP_PASSWORD = 's3cret-smtp-pass';
const LINK = 'https://auth.test/oauth2/acme/verify?ticket=abc_DEF-123';

function capturedLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger('info', stream) };
}

describe('the mailer', () => {
  let server: TestMailServer | undefined;
  let mailer: Mailer | undefined;
  afterEach(async () => {
    await mailer?.close();
    await server?.close();
    mailer = server = undefined;
  });

  it('delivers a mail in plain text and HTML that names the realm by its display name, else its name', async () => {
    server = await startMailServer({ auth: { user: 'relay', password: SMTP_PASSWORD } });
    mailer = new Mailer({ settings: server.settings, logger: capturedLogger().logger });
    const realm = realmLabel({ name: 'acme', settings: { display_name: 'Acme & Sons <Staff>' } });
    expect(realmLabel({ name: 'acme', settings: {} })).toBe('acme');

    const sent = await mailer.send(verificationMail('Alice@Example.com', { realm, username: 'alice', link: LINK, lifetime: 900 }));
    expect(sent).toBe(true);
    const mail = await server.nextMail('alice@example.com');
    expect(mail.headers.get('from')).toBe(TEST_MAIL_FROM);
    expect(mail.subject).toBe('Confirm your email address for Acme & Sons <Staff>');
    expect(mail.text).toContain('Acme & Sons <Staff>');
    expect(mail.text).toContain(`\n${LINK}\n`);
    expect(mail.text).toContain('within 15 minutes');
    // Everything from outside is escaped in the HTML part.
    expect(mail.html).toContain('Acme &amp; Sons &lt;Staff&gt;');
    expect(mail.html).not.toContain('<Staff>');
    expect(mail.html).toContain(`<a href="${LINK}">Confirm your email address</a>`);
  });

  it('escapes a username that holds markup, and keeps line breaks out of the subject', async () => {
    server = await startMailServer();
    mailer = new Mailer({ settings: server.settings, logger: capturedLogger().logger });
    const realm = realmLabel({ name: 'acme', settings: { display_name: 'Acme\r\nBcc: victim@example.com' } });
    const message = passwordResetMail('bob@example.com', { realm, username: '<img src=x onerror=alert(1)>', link: LINK, lifetime: 3600 });
    expect(await mailer.send(message)).toBe(true);
    const mail = await server.nextMail('bob@example.com');
    expect(mail.headers.has('bcc')).toBe(false);
    expect(mail.subject).toBe('Reset your Acme Bcc: victim@example.com password');
    expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(mail.html).not.toContain('<img');
    expect(mail.text).toContain('within 60 minutes');
  });

  it('retries a server that asks to try later, and delivers', async () => {
    server = await startMailServer();
    const { lines, logger } = capturedLogger();
    mailer = new Mailer({ settings: server.settings, logger, retryDelaysMs: [10, 20] });
    server.refuseNext(451, 421);
    const message = verificationMail('carol@example.com', { realm: 'acme', username: 'carol', link: LINK, lifetime: 900 });
    expect(await mailer.send(message)).toBe(true);
    expect((await server.nextMail('carol@example.com')).text).toContain(LINK);
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; mail: Record<string, unknown> });
    expect(logged.map((line) => [line.msg, line.mail.responseCode, line.mail.attempt])).toEqual([
      ['mail not sent, retrying', 451, 1],
      ['mail not sent, retrying', 421, 2],
    ]);
  });

  it('does not retry a final refusal, and reports it without throwing', async () => {
    server = await startMailServer();
    const { lines, logger } = capturedLogger();
    mailer = new Mailer({ settings: server.settings, logger, retryDelaysMs: [10, 20] });
    server.refuseNext(550);
    const message = verificationMail('dave@example.com', { realm: 'acme', username: 'dave', link: LINK, lifetime: 900 });
    expect(await mailer.send(message)).toBe(false);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 50, msg: 'mail not sent', mail: { responseCode: 550, attempt: 1, transient: false } });
    expect(server.received).toHaveLength(0);
  });

  it('retries a server that is down, then reports it: no throw, and neither the password, the message nor its recipient in the log', async () => {
    const port = await freePort();
    const { lines, logger } = capturedLogger();
    const smtp = parseSmtpUrl(`smtp://relay:${SMTP_PASSWORD}@127.0.0.1:${port}`);
    mailer = new Mailer({ settings: { smtp, from: TEST_MAIL_FROM }, logger, retryDelaysMs: [10, 20] });
    const message = passwordResetMail('erin@example.com', { realm: 'acme', username: 'erin', link: LINK, lifetime: 900 });
    await expect(mailer.send(message)).resolves.toBe(false);
    const logged = lines.map((line) => JSON.parse(line) as { level: number; mail: Record<string, unknown> });
    expect(logged.map((line) => [line.level, line.mail.attempt, line.mail.transient])).toEqual([
      [40, 1, true],
      [40, 2, true],
      [50, 3, true],
    ]);
    expect(logged[0]!.mail.code).toBe('ESOCKET');
    const log = lines.join('');
    for (const secret of [SMTP_PASSWORD, 'erin', 'ticket=', LINK]) expect(log).not.toContain(secret);
  });

  it('refuses a wrong SMTP password without retrying and without logging it', async () => {
    server = await startMailServer({ auth: { user: 'relay', password: SMTP_PASSWORD } });
    const { lines, logger } = capturedLogger();
    const smtp = parseSmtpUrl(server.url.replace(SMTP_PASSWORD, 'wrong-smtp-pass'));
    mailer = new Mailer({ settings: { smtp, from: TEST_MAIL_FROM }, logger, retryDelaysMs: [10, 20] });
    const message = verificationMail('frank@example.com', { realm: 'acme', username: 'frank', link: LINK, lifetime: 900 });
    expect(await mailer.send(message)).toBe(false);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'mail not sent', mail: { code: 'EAUTH', responseCode: 535 } });
    expect(lines[0]).not.toContain('wrong-smtp-pass');
  });

  it('waits for the mail being sent when it closes, and sends nothing after', async () => {
    server = await startMailServer();
    mailer = new Mailer({ settings: server.settings, logger: capturedLogger().logger });
    const sending = mailer.send(verificationMail('gina@example.com', { realm: 'acme', username: 'gina', link: LINK, lifetime: 900 }));
    await mailer.close();
    expect(await sending).toBe(true);
    expect(server.received).toHaveLength(1);
    expect(await mailer.send(verificationMail('gina@example.com', { realm: 'acme', username: 'gina', link: LINK, lifetime: 900 }))).toBe(false);
  });
});
