import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINGER } from '../../src/http/lingering-close.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { realmPath } from '../support/oauth.js';

/** A body well over the OAuth endpoints' 64 KiB limit. */
const BODY_BYTES = 2 * 1024 * 1024;
const TRIES = 50;
/** Tries run together: enough for the server to be busy, few enough for a 2-core machine. */
const BATCH = 10;

/** What the client read, and the first error of its socket (`EPIPE`, `ECONNRESET`: the server reset it). */
interface Outcome {
  answer: string;
  error: string | undefined;
}

const ANSWER = '{"error":"invalid_request","error_description":"the request body is too large"}';

/**
 * Sends a 2 MB form body on a connection of its own, declared by Content-Length or chunked, as
 * an upload under load goes: the server answers while most of the body is still to come. The
 * client sends what the server needs to refuse it (the headers, or 128 KiB of chunks), waits
 * until it has read the whole answer, then sends the rest part by part, and ends. A server
 * that closes as it answers resets the connection, and the rest fails (`EPIPE`, `ECONNRESET`):
 * a client that had not read the answer yet loses it then.
 */
function sendLargeBody(port: number, path: string, chunked: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let answer = '';
    let error: string | undefined;
    let answered: () => void;
    const whole = new Promise<void>((done) => {
      answered = done;
    });
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      if (answer.endsWith(ANSWER)) answered();
    });
    socket.on('error', (cause: NodeJS.ErrnoException) => {
      error ??= cause.code ?? cause.message;
      answered();
    });
    socket.on('close', () => {
      answered();
      resolve({ answer, error });
    });
    const part = (bytes: Buffer) => (chunked ? Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]) : bytes);
    const write = (bytes: Buffer | string) => new Promise<void>((done) => socket.write(bytes, () => done()));
    socket.on('connect', async () => {
      const length = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${BODY_BYTES}`;
      await write(`POST ${path} HTTP/1.1\r\nHost: auth.test\r\nContent-Type: application/x-www-form-urlencoded\r\n${length}\r\n\r\n`);
      const step = 64 * 1024;
      let sent = 0;
      if (chunked) for (; sent < 2 * step; sent += step) await write(part(Buffer.alloc(step, 'a')));
      await whole;
      for (; sent < BODY_BYTES && !socket.destroyed; sent += step) await write(part(Buffer.alloc(step, 'a')));
      if (chunked && !socket.destroyed) await write('0\r\n\r\n');
      if (!socket.destroyed) socket.end();
    });
  });
}

/**
 * CONTRACT.md §7: a body over the limit gets its 413, and the connection is drained before it
 * closes (src/http/lingering-close.ts), so that the client reads the answer rather than a
 * reset, however the body comes and however many arrive at once.
 */
describe('a body over the limit on a real connection', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    port = Number(new URL(t.baseUrl).port);
  });
  afterAll(() => t?.close());

  for (const endpoint of ['/par', '/device/code', '/bc-authorize', '/introspect', '/token/revoke']) {
    it(`POST ${endpoint}: the client reads the 413 and may send the rest of its body, in each of ${TRIES} tries`, async () => {
      const path = `${realmPath('root')}${endpoint}`;
      const outcomes: Outcome[] = [];
      for (let start = 0; start < TRIES; start += BATCH) {
        const batch = Array.from({ length: Math.min(BATCH, TRIES - start) }, (_, index) => sendLargeBody(port, path, (start + index) % 2 === 1));
        outcomes.push(...(await Promise.all(batch)));
      }
      expect(outcomes.filter((outcome) => outcome.error !== undefined).map((outcome) => outcome.error)).toEqual([]);
      for (const { answer } of outcomes) {
        expect(answer).toMatch(/^HTTP\/1\.1 413 /);
        expect(answer).toMatch(/\r\nconnection: close\r\n/i);
        expect(answer.endsWith(`\r\n\r\n${ANSWER}`)).toBe(true);
      }
    });
  }

  it('gives a request 5 minutes to arrive, its body included (docs/configuration.md "Input limits")', () => {
    expect(t.app.server.requestTimeout).toBe(300_000);
  });

  it(`reads on for at most ${LINGER.bytes / 1024 / 1024} MiB: a body that goes on is cut`, async () => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.on('error', () => {});
    socket.write(`POST ${realmPath('root')}/par HTTP/1.1\r\nHost: auth.test\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${2 ** 40}\r\n\r\n`);
    let sent = 0;
    const part = Buffer.alloc(256 * 1024, 'a');
    // Far more than the limit and whatever the kernel's buffers hold; the server cuts it well before.
    while (!socket.destroyed && sent < 50 * LINGER.bytes) {
      await new Promise<void>((done) => socket.write(part, () => done()));
      sent += part.length;
    }
    socket.end();
    await closed;
    // What the server read, and what the kernel's buffers held on both sides (at most some tens of MiB).
    expect(sent).toBeLessThan(LINGER.bytes + 64 * 1024 * 1024);
  });
});
