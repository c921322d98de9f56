import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type ClientRequest, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/app.js';
import { selfSigned } from '../support/certificates.js';
import { basic } from '../support/oauth.js';
import {
  type ProcessStore,
  type RunningServer,
  admin,
  buildOnce,
  createProcessStore,
  postForm,
  runToExit,
  serverEnv,
  spawnServer,
  startServer,
  stopAll,
  waitForStatus,
} from '../support/process.js';
import { testStoreKind } from '../support/store.js';

const ADMIN_TOKEN = 'admin-port-test-token-0123456789';
const PASSWORD = 'correct horse battery staple';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function answerOf(req: ClientRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
  });
}

/** A request on a connection of its own. */
function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; ca?: string } = {}): Promise<Answer> {
  const target = new URL(url);
  const common = { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false as const };
  const req = target.protocol === 'https:' ? httpsRequest(target, { ...common, ...(options.ca ? { ca: options.ca } : {}) }) : httpRequest(target, common);
  const answer = answerOf(req);
  req.end(options.body);
  return answer;
}

const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };

/**
 * A GET written byte for byte on a socket of its own, the path as it is (as `curl --path-as-is`):
 * no client library normalises its percent-encoding, dot segments or slashes. `connection: close`
 * ends the answer.
 */
function sendRaw(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
    const lines = [`GET ${path} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
    // Written, not ended: a half-closed socket lets the server drop an answer still being made.
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

/** Spellings of /admin… and /metrics that a router or a proxy may take for them (issue 34 item 4). */
const DISGUISED_ADMIN_PATHS = [
  '/%61dmin/realms', '/%61%64%6d%69%6e/realms', '/%61%64%6D%69%6E/realms', '/adm%69n/realms', '/admin/%72ealms',
  '/%61dmin/realms/root/users', '/%61dmin/realms/', '/%61dmin', '/%61dmin/console/', '/%61dmin/openapi.json',
  '//admin/realms', '/admin//realms', '/./admin/realms', '/admin/./realms', '/x/../admin/realms', '/%2e/admin/realms', '/%2fadmin/realms',
  '/admin%2frealms', '/admin/realms?x=1', '/admin/realms;x=1', '/%5cadmin/realms', 'http://127.0.0.1/admin/realms', 'http://127.0.0.1/%61dmin/realms',
  '/%6detrics', '/%6Detrics', '/%6d%65%74%72%69%63%73', '/metric%73', '//metrics', '/./metrics', '/metrics/', '/metrics?x=1', '/metrics;x', 'http://127.0.0.1/metrics',
];

/** The contract's 404, exactly as for a path the server does not have. */
function expectNotFound(answer: Answer, where: string): void {
  expect(answer.status, `${where}: ${answer.body}`).toBe(404);
  expect(JSON.parse(answer.body), where).toEqual({ error: 'not_found', error_description: expect.any(String) });
}

/** Whether nothing listens on the port any more: it can be bound again. */
function free(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createServer().listen(port, '127.0.0.1');
    socket.once('listening', () => socket.close(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * ADMIN_PORT (CONTRACT.md §1, issue 29 item 6): /admin and /metrics are served on that port
 * only, by the same process and store; the public port answers 404 there.
 */
describe('ADMIN_PORT', () => {
  let store: ProcessStore;

  beforeAll(async () => {
    await buildOnce();
    store = await createProcessStore();
  });
  afterAll(async () => {
    await stopAll();
    await store?.dispose();
  });

  describe('with ADMIN_PORT set', () => {
    let server: RunningServer;
    let adminPort: number;
    let adminUrl: string;

    beforeAll(async () => {
      adminPort = await freePort();
      adminUrl = `http://127.0.0.1:${adminPort}`;
      server = await startServer({ ...store.env, ADMIN_TOKEN, ADMIN_PORT: String(adminPort) });
      await waitForStatus(server.process, `${adminUrl}/healthz`, 200, Date.now() + 10_000);
    });

    it('the public port answers 404 for /admin (API and console) and /metrics, whatever the token says', async () => {
      for (const path of ['/admin/realms', '/admin/realms/root/users', '/admin/openapi.json', '/admin/console', '/admin/console/', '/admin', '/metrics']) {
        expectNotFound(await send(`${server.baseUrl}${path}`, { headers: bearer }), `public ${path}`);
        expectNotFound(await send(`${server.baseUrl}${path}`), `public ${path} without a token`);
      }
      expectNotFound(await send(`${server.baseUrl}/admin/realms`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: '{"name":"sneaky"}' }), 'public POST');
      // Nothing was created through the public port.
      const realms = await send(`${adminUrl}/admin/realms`, { headers: bearer });
      expect(realms.body).not.toContain('sneaky');
    });

    it('the public port\'s landing page names no admin path; the admin port answers 404 at /', async () => {
      const landing = await send(`${server.baseUrl}/`);
      expect(landing.status).toBe(200);
      expect(landing.body).toContain('/oauth2/.well-known/openid-configuration');
      expect(landing.body).not.toMatch(/\/admin|console|:${adminPort}/i);
      expectNotFound(await send(`${adminUrl}/`), 'admin /');
    });

    it('the public port answers 404 to /admin and /metrics however their path is spelt, the bytes as sent', async () => {
      for (const path of DISGUISED_ADMIN_PATHS) {
        const answer = await sendRaw(server.port, path, bearer);
        expect(answer.status, `public ${path}: ${answer.text}`).toBe(404);
        expect(answer.text, `public ${path}`).not.toMatch(/"root"|http_requests_total/);
      }
      // The same spellings that the router takes for an admin route still reach it on the admin port.
      expect((await sendRaw(adminPort, '/%61dmin/realms', bearer)).status).toBe(200);
      expect((await sendRaw(adminPort, '/%6detrics')).status).toBe(200);
    });

    it('the admin port answers 404 to the public endpoints however their path is spelt', async () => {
      for (const path of ['/%6fauth2/.well-known/openid-configuration', '/oauth2/%2ewell-known/openid-configuration', '/%6Fauth2/login']) {
        expect((await sendRaw(adminPort, path)).status, `admin ${path}`).toBe(404);
      }
    });

    it('the admin port serves the admin API behind its token, the console and the metrics', async () => {
      const realms = await send(`${adminUrl}/admin/realms`, { headers: bearer });
      expect(realms.status, realms.body).toBe(200);
      expect(realms.body).toContain('"root"');
      const anonymous = await send(`${adminUrl}/admin/realms`);
      expect(anonymous.status).toBe(401);
      expect(JSON.parse(anonymous.body)).toMatchObject({ error: 'invalid_token' });
      const console = await send(`${adminUrl}/admin/console/`);
      expect(console.status).toBe(200);
      expect(console.headers['content-type']).toMatch(/^text\/html/);
      const metrics = await send(`${adminUrl}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.body).toContain('http_requests_total');
    });

    it('the admin port does not serve the public endpoints', async () => {
      for (const path of ['/oauth2/.well-known/openid-configuration', '/oauth2/connect/jwk_uri', '/oauth2/login']) {
        expectNotFound(await send(`${adminUrl}${path}`), `admin ${path}`);
      }
      expect((await send(`${server.baseUrl}/oauth2/.well-known/openid-configuration`)).status).toBe(200);
    });

    it('both ports answer /healthz and /readyz', async () => {
      for (const base of [server.baseUrl, adminUrl]) {
        for (const path of ['/healthz', '/readyz']) expect((await send(`${base}${path}`)).status, `${base}${path}`).toBe(200);
      }
    });

    it('is one process with one store: what the admin port creates the public port serves, and its metrics count both', async () => {
      const realm = `ap${Date.now().toString(36)}`;
      await admin({ baseUrl: adminUrl }, ADMIN_TOKEN, 'POST', '/realms', { name: realm });
      await admin({ baseUrl: adminUrl }, ADMIN_TOKEN, 'POST', `/realms/${realm}/users`, { username: 'alice', password: PASSWORD });
      const client = await admin<{ client_id: string; client_secret: string }>({ baseUrl: adminUrl }, ADMIN_TOKEN, 'POST', `/realms/${realm}/clients`, {
        grant_types: ['password'],
        scope: 'openid',
      });
      const granted = await postForm(`${server.baseUrl}/oauth2/${realm}/access_token`, { grant_type: 'password', username: 'alice', password: PASSWORD, scope: 'openid' }, {
        authorization: basic(client.client_id, client.client_secret),
      });
      expect(granted.status, await granted.clone().text()).toBe(200);
      // The public port's token shows in the admin port's metrics and audit trail.
      const metrics = await send(`${adminUrl}/metrics`);
      expect(metrics.body).toMatch(/tokens_issued_total\{grant_type="password"\} [1-9]/);
      const events = JSON.parse((await send(`${adminUrl}/admin/realms/${realm}/events?type=token.issued`, { headers: bearer })).body);
      expect(events.events).toHaveLength(1);
    });

    it('SIGTERM closes both listeners after their requests in flight, and the process exits 0', async () => {
      // An admin request begun before the signal, its body not yet all sent.
      const body = JSON.stringify({ name: `late${Date.now().toString(36)}` });
      const held = httpRequest(`${adminUrl}/admin/realms`, {
        method: 'POST',
        agent: false,
        headers: { ...bearer, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close' },
      });
      const answer = answerOf(held);
      await new Promise<void>((resolve) => held.write(body.slice(0, 5), () => resolve()));
      // A barrier: the admin listener has read the request's head once it answers one sent after it.
      expect((await send(`${adminUrl}/healthz`)).status).toBe(200);

      server.process.signal('SIGTERM');
      await delay(400);
      expect(server.process.exit, 'it waits for the request in flight').toBeUndefined();
      held.end(body.slice(5));
      const held201 = await answer;
      expect(held201.status, held201.body).toBe(201);
      expect(await server.process.waitForExit(10_000)).toEqual({ code: 0, signal: null });
      expect(await free(server.port), 'the public port is closed').toBe(true);
      expect(await free(adminPort), 'the admin port is closed').toBe(true);
      // The start-up line names the console on the admin port, not under the public BASE_URL.
      expect(server.process.stderr.split('\n').filter((line) => line.includes('admin console'))).toEqual([`realmgate admin console: ${adminUrl}/admin/console/`]);
    });
  });

  it('unset, /admin and /metrics stay on the public port', async () => {
    const server = await startServer({ ...store.env, ADMIN_TOKEN });
    try {
      expect((await send(`${server.baseUrl}/admin/realms`, { headers: bearer })).status).toBe(200);
      expect((await send(`${server.baseUrl}/metrics`)).status).toBe(200);
      expect((await send(`${server.baseUrl}/oauth2/.well-known/openid-configuration`)).status).toBe(200);
    } finally {
      expect(await server.process.stop()).toEqual({ code: 0, signal: null });
    }
  });

  // Not about the store: run once, in the pglite project.
  describe.skipIf(testStoreKind() === 'postgres')('TLS and refusals', () => {
    it('with TLS_CERT and TLS_KEY the admin port speaks HTTPS with the same certificate', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'realmgate-admin-port-'));
      try {
        const pair = selfSigned(dir, 'server', '/CN=127.0.0.1', ['subjectAltName=IP:127.0.0.1']);
        writeFileSync(join(dir, 'cert.pem'), pair.cert);
        writeFileSync(join(dir, 'key.pem'), pair.key);
        const [port, adminPort] = [await freePort(), await freePort()];
        const server = spawnServer(
          serverEnv({
            PORT: String(port), ADMIN_PORT: String(adminPort), HOST: '127.0.0.1', BASE_URL: `https://127.0.0.1:${port}`, DATA_DIR: 'memory://', ADMIN_TOKEN,
            TLS_CERT: join(dir, 'cert.pem'), TLS_KEY: join(dir, 'key.pem'),
          }),
        );
        try {
          const deadline = Date.now() + 30_000;
          let realms: Answer | undefined;
          while (Date.now() < deadline && !realms) {
            if (server.exit) throw new Error(`the server exited: ${server.output}`);
            realms = await send(`https://127.0.0.1:${adminPort}/admin/realms`, { headers: bearer, ca: pair.cert }).catch(() => undefined);
            if (!realms) await delay(100);
          }
          expect(realms?.status).toBe(200);
          expectNotFound(await send(`https://127.0.0.1:${port}/admin/realms`, { headers: bearer, ca: pair.cert }), 'public over TLS');
          // Plain HTTP to the admin port is not served (the TLS listener drops it, or answers 400).
          const plain = await send(`http://127.0.0.1:${adminPort}/admin/realms`, { headers: bearer }).then((answer) => answer.status, () => 0);
          expect(plain).not.toBe(200);
        } finally {
          expect(await server.stop()).toEqual({ code: 0, signal: null });
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it.each([
      ['not a port', { ADMIN_PORT: 'abc' }],
      ['out of range', { ADMIN_PORT: '70000' }],
      ['the same as PORT', { ADMIN_PORT: 'PORT' }],
    ])('%s: refused at start with one line naming ADMIN_PORT', async (_case, vars) => {
      const port = await freePort();
      const adminPort = vars.ADMIN_PORT === 'PORT' ? String(port) : vars.ADMIN_PORT;
      const result = await runToExit(serverEnv({ PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}`, DATA_DIR: 'memory://', ADMIN_PORT: adminPort }));
      expect(result.code, result.stderr).toBe(1);
      const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('ADMIN_PORT');
    });

    // The whole start-up runs before the listeners open: the time a busy machine takes.
    it('a port taken by another program: refused at start with one line naming ADMIN_PORT', { timeout: 90_000 }, async () => {
      const taken = createServer().listen(0, '127.0.0.1');
      await new Promise((resolve) => taken.once('listening', resolve));
      try {
        const busy = (taken.address() as { port: number }).port;
        const port = await freePort();
        const result = await runToExit(serverEnv({ PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}`, DATA_DIR: 'memory://', ADMIN_TOKEN, ADMIN_PORT: String(busy) }), 60_000);
        expect(result.code, result.stderr).toBe(1);
        const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain('ADMIN_PORT');
        expect(lines[0]).toContain('EADDRINUSE');
      } finally {
        taken.close();
      }
    });
  });
});
