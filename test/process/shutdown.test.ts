import { type ClientRequest, request } from 'node:http';
import { connect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from '../support/oauth.js';
import { type ProcessStore, type RunningServer, admin, buildOnce, createProcessStore, startServer, stopAll } from '../support/process.js';

const ADMIN_TOKEN = 'process-test-admin-token-0123456789';
const BODY = 'grant_type=client_credentials';

interface Answer {
  /** 0 when the request failed; `body` then says why. */
  status: number;
  body: string;
}

interface HeldRequest {
  /** Resolves once the headers and the first part of the body are on the wire. */
  sent: Promise<void>;
  /** Sends the rest of the body. */
  finish(): void;
  answer: Promise<Answer>;
}

/**
 * A token request that the server has begun to read but cannot answer yet: in flight,
 * however quickly the server works, until `finish()` sends the end of its body.
 */
function heldTokenRequest(baseUrl: string, realm: string, authorization: string): HeldRequest {
  const split = BODY.length - 5;
  const req = request(`${baseUrl}/oauth2/${realm}/access_token`, {
    method: 'POST',
    agent: false, // a connection of its own
    headers: {
      authorization,
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(Buffer.byteLength(BODY)),
      connection: 'close',
    },
  });
  return {
    sent: new Promise((resolve) => req.write(BODY.slice(0, split), () => resolve())),
    finish: () => req.end(BODY.slice(split)),
    answer: answerOf(req),
  };
}

/** GET on a new connection: not on one of fetch's kept-alive ones. */
function getOnNewConnection(url: string): Promise<Answer> {
  const req = request(url, { agent: false });
  const answer = answerOf(req);
  req.end();
  return answer;
}

function answerOf(req: ClientRequest): Promise<Answer> {
  return new Promise((resolve) => {
    req.on('error', (error) => resolve({ status: 0, body: String(error) }));
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', (error) => resolve({ status: 0, body: String(error) }));
    });
  });
}

/** Whether a new TCP connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

async function eventuallyRefused(port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await refused(port)) return true;
    await delay(25);
  }
  return false;
}

describe('health and a graceful stop on SIGTERM', () => {
  let store: ProcessStore;
  let server: RunningServer;

  beforeAll(async () => {
    await buildOnce();
    store = await createProcessStore();
    server = await startServer({ ...store.env, ADMIN_TOKEN });
  });

  afterAll(async () => {
    await stopAll();
    await store?.dispose();
  });

  it('answers /healthz and /readyz with 200 while running', async () => {
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
  });

  it('stops accepting, finishes the 20 requests in flight with 200, and exits 0 within 10 s', async () => {
    await admin(server, ADMIN_TOKEN, 'POST', '/realms', { name: 'stop' });
    const client = await admin<{ client_id: string; client_secret: string }>(server, ADMIN_TOKEN, 'POST', '/realms/stop/clients', {
      grant_types: ['client_credentials'],
    });
    const authorization = basic(client.client_id, client.client_secret);

    const held = Array.from({ length: 20 }, () => heldTokenRequest(server.baseUrl, 'stop', authorization));
    await Promise.all(held.map((h) => h.sent));
    // A barrier: the server accepts connections in order and reads what is ready on all of
    // them before it looks for a signal, so once it has answered one opened after the 20,
    // it has begun reading every one of them.
    expect((await getOnNewConnection(`${server.baseUrl}/healthz`)).status).toBe(200);

    const signalledAt = Date.now();
    server.process.signal('SIGTERM');
    expect(await eventuallyRefused(server.port, 5_000), 'new connections are refused after SIGTERM').toBe(true);
    expect(server.process.exit, 'it waits for the requests in flight').toBeUndefined();

    for (const h of held) h.finish();
    const answers = await Promise.all(held.map((h) => h.answer));
    for (const answer of answers) {
      expect(answer.status, answer.body).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer' });
    }

    expect(await server.process.waitForExit(10_000)).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
  });
});
