import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { redactedUrl } from '../src/http/request-log.js';
import { createLogger } from '../src/logger.js';

function capture(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

describe('logging', () => {
  it('censors secret-named fields anywhere they are logged, but keeps error codes', () => {
    const { lines, stream } = capture();
    createLogger('info', stream).info(
      {
        err: { code: '23505', message: 'duplicate key' },
        body: { password: 'hunter2', client_secret: 'cs-1', refresh_token: 'rt-1', client_assertion: 'ca-1' },
        req: { headers: { authorization: 'Basic abc', cookie: 'sid=1' } },
        access_token: 'at-1',
      },
      'event',
    );
    const line = lines.join('');
    for (const secret of ['hunter2', 'cs-1', 'rt-1', 'ca-1', 'Basic abc', 'sid=1', 'at-1']) expect(line).not.toContain(secret);
    expect(JSON.parse(line).err.code).toBe('23505');
  });

  it('censors credential headers of a request, a response or a bare headers object, and leaves the rest and errors whole', () => {
    const { lines, stream } = capture();
    const error = Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    const logged = {
      headers: { authorization: 'Bearer top', 'content-type': 'application/json' },
      res: { statusCode: 200, headers: { 'set-cookie': 'rg_session=abc' } },
      err: error,
      user_code: 'BCDF-GHJK',
    };
    createLogger('info', stream).info(logged, 'event');
    const line = JSON.parse(lines.join(''));
    expect(line.headers).toEqual({ authorization: '[redacted]', 'content-type': 'application/json' });
    expect(line.res).toEqual({ statusCode: 200, headers: { 'set-cookie': '[redacted]' } });
    expect(line.user_code).toBe('[redacted]');
    expect(line.err).toMatchObject({ message: 'refused', code: 'ECONNREFUSED' });
    // The caller's object is not changed.
    expect(logged.headers.authorization).toBe('Bearer top');
  });

  it('logs a URL with only its safe query parameters, names and values', () => {
    expect(redactedUrl('/oauth2/token/revoke')).toBe('/oauth2/token/revoke');
    const logged = redactedUrl('/oauth2/authorize?client_id=app&state=s3&code_challenge=cc&S3CRETNAME=&scope=openid%20email');
    expect(logged).toBe('/oauth2/authorize?client_id=app&scope=openid%20email&[3 more]');
  });
});
