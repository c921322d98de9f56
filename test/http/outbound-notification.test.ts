import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { keyPair } from '../support/keys.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { createUser } from '../support/users.js';

/**
 * The realm's CIBA notification URL, set by an admin, goes through the outbound fetcher: it
 * cannot reach the server's own network unless OUTBOUND_ALLOW (CONTRACT.md §1) lists it.
 */

const CIBA = 'urn:openid:params:grant-type:ciba';

async function startApp(outboundAllow?: string[]): Promise<TestApp & { logs: string[] }> {
  const logs: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void logs.push(line) });
  const t = await startTestApp({ logger, ...(outboundAllow ? { outboundAllow } : {}) });
  return { ...t, logs };
}

/** A realm notifying `url`, with a CIBA client and a user: what a backchannel request needs. */
async function cibaRealm(t: TestApp, realm: string, url: string) {
  await t.admin.createRealm(realm, { ciba_notification_url: url });
  const key = await keyPair('ES256');
  const client = await t.admin.createClient(realm, {
    client_name: 'Point of sale',
    grant_types: [CIBA],
    scope: 'openid',
    jwks: { keys: [key.publicJwk] },
  });
  await createUser(t.admin, realm, 'nina');
  return async () => {
    const response = await postForm(t.app, `${realmPath(realm)}/bc-authorize`, { scope: 'openid', login_hint: 'nina' }, {
      authorization: basic(client.client_id, client.client_secret as string),
    });
    expect(response.statusCode).toBe(200);
  };
}

/** The log line of `message` that names `origin`, once it is written. */
async function logLine(t: { logs: string[] }, message: string, origin: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 10_000;
  let line: string | undefined;
  while (!(line = t.logs.find((l) => l.includes(message) && l.includes(`"notification_origin":"${origin}"`))) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(line, `${message} for ${origin}`).toBeDefined();
  return JSON.parse(line!) as Record<string, unknown>;
}

describe('the CIBA notification URL and the SSRF guard', () => {
  let server: Server;
  let port: number;
  const received: IncomingMessage[] = [];
  let onReceived: (() => void) | undefined;

  beforeAll(async () => {
    server = createServer((request, response) => {
      received.push(request);
      request.resume();
      request.on('end', () => {
        response.writeHead(204).end();
        onReceived?.();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('does not reach loopback, by address, mapped address or name, and logs why without the URL', async () => {
    const t = await startApp();
    try {
      const bcAuthorize = await cibaRealm(t, 'hooked', 'https://hooks.test/ciba');
      for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', 'localhost']) {
        const url = new URL(`http://${host}:${port}/hook?key=receiver-secret`);
        const set = await t.admin.request('PATCH', '/realms/hooked', { settings: { ciba_notification_url: url.href } });
        expect(set.statusCode).toBe(200);
        await bcAuthorize();
        const line = await logLine(t, 'CIBA notification failed', url.origin);
        expect(line).toMatchObject({ level: 40, realm: 'hooked', reason: 'refused_address' });
      }
      expect(received).toHaveLength(0);
      for (const line of t.logs) expect(line).not.toContain('receiver-secret');
    } finally {
      await t.close();
    }
  });

  it('reaches it when OUTBOUND_ALLOW lists it', async () => {
    const t = await startApp(['127.0.0.1']);
    try {
      const arrived = new Promise<void>((resolve) => (onReceived = resolve));
      await (await cibaRealm(t, 'hook-allowed', `http://127.0.0.1:${port}/hook`))();
      await arrived;
      expect(received.at(-1)).toMatchObject({ method: 'POST', url: '/hook' });
    } finally {
      onReceived = undefined;
      await t.close();
    }
  });
});
