import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/app.js';
import { type ServerProcess, buildOnce, serverEnv, spawnServer, stopAll, waitForStatus } from '../support/process.js';
import { testStoreKind } from '../support/store.js';

const ADMIN_TOKEN_LINE = /admin token[^\n]*?:\s*(\S+)/g;

/** The generated admin tokens printed (on stderr). */
const printedTokens = (output: string): string[] => [...output.matchAll(ADMIN_TOKEN_LINE)].map((match) => match[1]!);

async function rootKids(baseUrl: string): Promise<string[]> {
  const response = await fetch(`${baseUrl}/oauth2/connect/jwk_uri`);
  expect(response.status).toBe(200);
  const { keys } = (await response.json()) as { keys: { kid: string }[] };
  return keys.map((key) => key.kid).sort();
}

const adminRealms = (baseUrl: string, token: string) =>
  fetch(`${baseUrl}/admin/realms`, { headers: { authorization: `Bearer ${token}` } });

describe.skipIf(testStoreKind() === 'postgres')('`npm start` on a bare machine: the embedded store in a fresh DATA_DIR', () => {
  let dataDir: string;
  let baseUrl: string;
  let env: NodeJS.ProcessEnv;
  let first: ServerProcess;
  let adminToken: string;
  let kids: string[];

  beforeAll(async () => {
    // Built ahead, so that npm's own prestart build is a no-op, and test files running in
    // parallel do not rebuild dist/ under each other.
    await buildOnce();
    dataDir = mkdtempSync(join(tmpdir(), 'realmgate-data-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // No DATABASE_URL, ADMIN_TOKEN or MASTER_KEY: serverEnv passes none through.
    env = serverEnv({ PORT: String(port), HOST: '127.0.0.1', BASE_URL: baseUrl, DATA_DIR: dataDir });
  });

  afterAll(async () => {
    await stopAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // The deadline catches a start that hangs. On these two-core machines this start took 4 s
  // alone, 13 s beside two other files that start servers, and more than 15 s once in CI.
  it('serves the root realm discovery, issuer {BASE_URL}/oauth2, within 45 s', async () => {
    first = spawnServer(env, 'npm-start');
    const response = await waitForStatus(first, `${baseUrl}/oauth2/.well-known/openid-configuration`, 200, first.spawnedAt + 45_000);
    expect(((await response.json()) as { issuer: string }).issuer).toBe(`${baseUrl}/oauth2`);
  }, 60_000);

  it('prints the generated admin token once on stderr, as a plain line apart from the logs, and that token opens the admin API', async () => {
    const printed = printedTokens(first.stderr);
    expect(printed).toHaveLength(1);
    adminToken = printed[0]!;
    expect(first.stderr.split(adminToken)).toHaveLength(2); // once
    expect(first.stderr.split('\n').find((line) => line.includes(adminToken))).toBe(`realmgate admin token (shown once, keep it safe): ${adminToken}`);
    // stdout carries the JSON log lines, which are shipped with the logs: never the token.
    expect(first.stdout).not.toContain(adminToken);

    expect((await adminRealms(baseUrl, adminToken)).status).toBe(200);
    expect((await adminRealms(baseUrl, `${adminToken}x`)).status).toBe(401);
  });

  it('signs tokens (a JWT access token, by the signing keys decrypted from the store) without a warning on stderr', async () => {
    const admin = (path: string, body: unknown) =>
      fetch(`${baseUrl}/admin${path}`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await admin('/realms', { name: 'startup', settings: { stateless_tokens: true } })).status).toBe(201);
    const client = (await (await admin('/realms/startup/clients', { grant_types: ['client_credentials'] })).json()) as { client_id: string; client_secret: string };
    const discovery = (await (await fetch(`${baseUrl}/oauth2/startup/.well-known/openid-configuration`)).json()) as { token_endpoint: string };
    const response = await fetch(discovery.token_endpoint, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { access_token: string }).access_token.split('.')).toHaveLength(3);
    // stderr is judged once the process has exited and all its output is read (the next test).
  });

  it('generates master.key into the data dir, readable by its owner only', () => {
    const file = join(dataDir, 'master.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url')).toHaveLength(32);
  });

  it('starts again on the same DATA_DIR: no new token printed, the token and the signing keys persist', async () => {
    kids = await rootKids(baseUrl);
    expect(kids.length).toBeGreaterThan(0);
    // As Ctrl-C would: the whole group (npm dies of the signal itself, so its exit code says nothing).
    expect((await first.stop()).signal).not.toBe('SIGKILL');
    // Its whole stderr, read to the end: the console's URL once, as a plain line without the
    // token, and no deprecation or experimental warning, from start-up to the tokens signed.
    const consoleLines = first.stderr.split('\n').filter((line) => line.includes('admin console'));
    expect(consoleLines).toEqual([`realmgate admin console: ${baseUrl}/admin/console/`]);
    expect(first.stderr).not.toMatch(/warn|deprecat|experimental/i);

    const second = spawnServer(env, 'dist');
    // Starting at all means MASTER_KEY (from master.key) still decrypts the stored keys.
    await waitForStatus(second, `${baseUrl}/healthz`, 200, second.spawnedAt + 15_000);
    expect(printedTokens(second.output)).toEqual([]);
    expect(second.output).not.toContain(adminToken);
    expect((await adminRealms(baseUrl, adminToken)).status).toBe(200);
    expect(await rootKids(baseUrl)).toEqual(kids);
    expect(await second.stop()).toEqual({ code: 0, signal: null });
    // node dist/server.js alone (no npm): stderr holds the console's line and nothing else.
    expect(second.stderr).toBe(`realmgate admin console: ${baseUrl}/admin/console/\n`);
  }, 30_000);
});
