import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const FROM = 'Acme <no-reply@acme.example>';

describe('SMTP_URL and MAIL_FROM', () => {
  it('configure no mail when unset', () => {
    expect(loadConfig({}).mail).toBeUndefined();
    expect(loadConfig({ SMTP_URL: '', MAIL_FROM: '' }).mail).toBeUndefined();
  });

  it('read the server, its default ports, and a percent-encoded user and password', () => {
    const plain = loadConfig({ SMTP_URL: 'smtp://mail.example:2525', MAIL_FROM: 'no-reply@acme.example' }).mail;
    expect(plain).toMatchObject({ smtp: { host: 'mail.example', port: 2525, secure: false, user: undefined }, from: 'no-reply@acme.example' });
    expect(loadConfig({ SMTP_URL: 'smtp://mail.example', MAIL_FROM: FROM }).mail?.smtp).toMatchObject({ port: 587, secure: false });
    const secure = loadConfig({ SMTP_URL: 'smtps://relay%40acme:p%40ss%3Aw0rd@[::1]', MAIL_FROM: FROM }).mail;
    expect(secure?.smtp).toMatchObject({ host: '::1', port: 465, secure: true, user: 'relay@acme', password: 'p@ss:w0rd' });
    expect(secure?.from).toBe(FROM);
  });

  it('keep the password out of the configuration when it is serialized or inspected', () => {
    const config = loadConfig({ SMTP_URL: 'smtp://relay:s3cret-smtp-pass@mail.example:25', MAIL_FROM: FROM });
    expect(config.mail?.smtp.password).toBe('s3cret-smtp-pass');
    expect(JSON.stringify(config)).not.toContain('s3cret-smtp-pass');
    expect(inspect(config, { depth: 10 })).not.toContain('s3cret-smtp-pass');
  });

  it('refuse a bad SMTP_URL naming the variable, never repeating the password', () => {
    for (const bad of [
      'http://relay:s3cret-smtp-pass@mail.example',
      'smtp://relay:s3cret-smtp-pass@mail.example/path',
      'smtp://relay:s3cret-smtp-pass@mail.example?tls=no',
      'smtp://relay:s3cret-smtp-pass@mail.example:99999',
      'smtp://:s3cret-smtp-pass@mail.example',
      'relay:s3cret-smtp-pass@mail.example',
    ]) {
      let error: unknown;
      try {
        loadConfig({ SMTP_URL: bad, MAIL_FROM: FROM });
      } catch (caught) {
        error = caught;
      }
      expect(error, bad).toBeInstanceOf(ConfigError);
      expect((error as Error).message, bad).toMatch(/^invalid configuration: SMTP_URL: /);
      expect((error as Error).message, bad).not.toContain('s3cret-smtp-pass');
    }
  });

  it('need MAIL_FROM with SMTP_URL, and refuse a MAIL_FROM that is no address or spans lines', () => {
    expect(() => loadConfig({ SMTP_URL: 'smtp://mail.example' })).toThrow(/^invalid configuration: MAIL_FROM: required with SMTP_URL/);
    for (const bad of ['no-reply', 'Acme <no-reply>', 'a@b.example\r\nBcc: victim@example.com', 'Acme\n <a@b.example>', '<a@b.example']) {
      expect(() => loadConfig({ SMTP_URL: 'smtp://mail.example', MAIL_FROM: bad }), bad).toThrow(/^invalid configuration: MAIL_FROM: expected an address/);
    }
  });
});
