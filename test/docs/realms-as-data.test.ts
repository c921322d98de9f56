import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealmImportSummarySchema } from '../../src/admin/realm-data/summary-schema.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { buildOnce } from '../support/process.js';
import { readDoc, runWithCli, shellBlocks } from './support.js';

/**
 * docs/realms-as-data.md's examples hold: its shell blocks, run in order by bash with
 * `realmgate` the built CLI, export a realm, import it into another, give what came without a
 * secret its secret, and find the realm as the file says; the import's printed summary is the
 * page's; its JSON examples are answers the server gives.
 */
const DOC = 'docs/realms-as-data.md';
const CORP_SECRET = 'corp-secret-from-the-pipeline';

/** The page's blocks of a language, as their text (a block within a list item is indented, which JSON ignores). */
const block = (markdown: string, language: string): string[] =>
  [...markdown.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1]!);

describe(`the examples of ${DOC}`, () => {
  let t: TestApp;
  let dir: string;
  const doc = readDoc(DOC);

  beforeAll(async () => {
    [t] = await Promise.all([startTestApp({ listen: true }), buildOnce()]);
    dir = await mkdtemp(join(tmpdir(), 'realmgate-realms-as-data-'));
    await t.admin.createRealm('acme');
    await t.admin.putScope('acme', 'orders:read', 'Read your orders');
    const journey = { start: 'pw', nodes: { pw: { type: 'password', next: { success: 'done' } } } };
    expect((await t.admin.request('PUT', '/realms/acme/journeys/quick', journey)).statusCode).toBe(201);
    await t.admin.createClient('acme', { client_id: 'billing', grant_types: ['client_credentials'], scope: 'orders:read' });
    await t.admin.createClient('acme', { client_id: 'web', client_type: 'public', redirect_uris: ['https://acme.example/cb'], scope: 'openid orders:read' });
    const provider = await t.admin.request('POST', '/realms/acme/identity-providers', {
      alias: 'corp', kind: 'oidc', issuer: 'https://login.corp.example', client_id: 'realmgate', client_secret: 'the first secret',
    });
    expect(provider.statusCode, provider.body).toBe(201);
  });

  afterAll(async () => {
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs its shell blocks in order: the export, the import into another realm as the page shows it, the secrets set, the realm found as in git', async () => {
    const blocks = shellBlocks(doc);
    expect(blocks.length).toBeGreaterThanOrEqual(7);
    const run = await runWithCli(blocks, t.baseUrl, { CORP_SECRET }, dir);
    expect(run.code, run.output).toBe(0);
    expect(run.output).not.toContain(CORP_SECRET);
    expect(run.output).toMatch(/acme is as in git\n$/);

    // The summary the page shows is the one printed, but for how many settings there are.
    const anyCount = (text: string) => text.replace(/^(settings\s+0\s+0\s+0\s+)\d+$/m, '$1N');
    const start = run.output.indexOf('Realm acme-staging created.');
    const end = run.output.indexOf('\n', run.output.indexOf('  identity provider corp:', start));
    expect(start).toBeGreaterThan(-1);
    expect(anyCount(run.output.slice(start, end))).toBe(anyCount(block(doc, 'text')[0]!.trimEnd()));

    // What the page says to do gave the client and the provider their secrets.
    const summary = await t.admin.request('PUT', '/realms/acme-staging/import', JSON.parse(await readFile(join(dir, 'acme.json'), 'utf8')));
    expect(summary.json()).toMatchObject({ realm_created: false, secrets_to_set: { clients: [], identity_providers: [] } });
    expect(JSON.parse(await readFile(join(dir, 'acme.json'), 'utf8'))).toEqual((await t.admin.request('GET', '/realms/acme/export')).json());
  });

  it('shows a refusal and a summary as the server writes them', async () => {
    const [refusal, summary] = block(doc, 'json').map((text) => JSON.parse(text) as Record<string, unknown>);
    const document = (await t.admin.request('GET', '/realms/acme/export')).json() as { clients: Array<Record<string, unknown>> };
    document.clients[1] = { ...document.clients[1], redirect_uris: ['not-a-uri'] };
    const refused = await t.admin.request('PUT', '/realms/acme/import', document);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual(refusal);
    expect(RealmImportSummarySchema.safeParse(summary).success).toBe(true);
  });
});
