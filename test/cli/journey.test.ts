import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { buildOnce } from '../support/process.js';
import { cliOk, runCli, tableRows } from './support.js';

const RISKY = {
  start: 'pw',
  nodes: {
    pw: { type: 'password', next: { success: 'risk' } },
    risk: { type: 'risk', next: { low: 'done', high: 'otp' } },
    otp: { type: 'otp', next: { success: 'done' } },
  },
};

/** `realmgate journey list|get|put|delete` against a listening server (CONTRACT.md §8). */
describe('realmgate journey commands', () => {
  let t: TestApp;
  let env: Record<string, string>;
  let dir: string;
  const cli = (args: string[], input?: string) => cliOk(args, { env, ...(input === undefined ? {} : { input }) });
  const refused = (args: string[], input?: string) => runCli(args, { env, ...(input === undefined ? {} : { input }) });

  beforeAll(async () => {
    [t] = await Promise.all([startTestApp({ listen: true }), buildOnce()]);
    env = { REALMGATE_URL: t.baseUrl, REALMGATE_ADMIN_TOKEN: ADMIN_TOKEN };
    dir = await mkdtemp(join(tmpdir(), 'realmgate-journey-'));
    await t.admin.createRealm('shop', { authentication: ['password', 'otp'] });
  });

  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is listed among the commands', async () => {
    expect((await cli(['--help'])).stdout).toMatch(/^  journey\b/m);
  });

  it('put reads a file, get prints the JSON stored, list shows default and the stored ones', async () => {
    const file = join(dir, 'risky.json');
    await writeFile(file, JSON.stringify(RISKY, null, 2));
    const put = await cli(['journey', 'put', 'shop', 'risky', file]);
    expect(put.stdout).toBe('Journey risky of shop saved.\n');
    expect((await t.admin.request('GET', '/realms/shop/journeys/risky')).json()).toEqual(RISKY);

    const got = await cli(['journey', 'get', 'shop', 'risky']);
    expect(JSON.parse(got.stdout)).toEqual(RISKY);
    expect(JSON.parse((await cli(['journey', 'get', 'shop', 'default'])).stdout)).toMatchObject({ start: 'password' });

    expect(tableRows((await cli(['journey', 'list', 'shop'])).stdout)).toEqual([
      { NAME: 'default', START: 'password', NODES: '2' },
      { NAME: 'risky', START: 'pw', NODES: '3' },
    ]);
    const json = JSON.parse((await cli(['journey', 'list', 'shop', '--json'])).stdout);
    expect(json).toEqual((await t.admin.request('GET', '/realms/shop/journeys')).json());
  });

  it('put - reads standard input; --json prints the journey the server stored', async () => {
    const journey = { start: 'pw', nodes: { pw: { type: 'password', next: { success: 'done' } } } };
    const put = await cli(['journey', 'put', 'shop', 'default', '-', '--json'], `${JSON.stringify(journey)}\n`);
    expect(JSON.parse(put.stdout)).toEqual(journey);
    expect((await t.admin.request('GET', '/realms/shop/journeys/default')).json()).toEqual(journey);
  });

  it('says why a journey is refused: the server naming the node, a file that is not JSON, a file that is not there', async () => {
    const invalid = await refused(['journey', 'put', 'shop', 'broken', '-'], JSON.stringify({ start: 'pw', nodes: { pw: { type: 'password', next: { success: 'nowhere' } } } }));
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toBe('realmgate: invalid_request: node "pw": outcome "success" leads to "nowhere", which is no node\n');

    const notJson = join(dir, 'not.json');
    await writeFile(notJson, '{"start": ');
    const garbled = await refused(['journey', 'put', 'shop', 'broken', notJson]);
    expect(garbled.code).toBe(2);
    expect(garbled.stderr).toMatch(/^realmgate: .*not\.json is not JSON/);

    const missing = await refused(['journey', 'put', 'shop', 'broken', join(dir, 'missing.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^realmgate: cannot read .*missing\.json \(ENOENT\)\n$/);
    expect((await t.admin.request('GET', '/realms/shop/journeys/broken')).statusCode).toBe(404);
  });

  it('delete refuses a journey a client names, then deletes it once the client lets go', async () => {
    await t.admin.createClient('shop', { client_id: 'till', grant_types: ['client_credentials'], journey: 'risky' });
    const inUse = await refused(['journey', 'delete', 'shop', 'risky']);
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toMatch(/^realmgate: conflict: .*till/);

    await t.admin.request('PATCH', '/realms/shop/clients/till', { journey: null });
    const deleted = await cli(['journey', 'delete', 'shop', 'risky']);
    expect(deleted.stdout).toBe('Journey risky of shop deleted.\n');
    const gone = await refused(['journey', 'get', 'shop', 'risky']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe('realmgate: not_found: no such journey\n');
  });
});
