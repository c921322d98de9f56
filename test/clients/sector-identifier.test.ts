import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, type Server, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SectorIdentifierFetcher } from '../../src/clients/sector-identifier.js';
import { OutboundFetcher } from '../../src/http/outbound-fetch.js';
import { NO_RATE_LIMITS, type TestApp, startTestApp, freePort } from '../support/app.js';
import { selfSigned } from '../support/certificates.js';
import { freshRealm } from '../support/flow-helpers.js';
import { REDIRECT_URI } from '../support/flow.js';
import { realmPath } from '../support/oauth.js';
import { createUser, passwordTokens } from '../support/users.js';

const ELSEWHERE = 'https://elsewhere.example/callback';

/** An HTTPS server on loopback with a certificate of its own, serving the documents a test sets. */
class SectorServer {
  private readonly documents = new Map<string, { type: string; body: string }>();
  private server!: Server;
  private dir!: string;
  agent!: Agent;
  origin!: string;

  async start(): Promise<void> {
    this.dir = mkdtempSync(`${tmpdir()}/sector-`);
    const pair = selfSigned(this.dir, 'server', '/CN=127.0.0.1', ['subjectAltName=IP:127.0.0.1']);
    this.server = createServer({ key: pair.key, cert: pair.cert }, (request, response) => {
      const document = this.documents.get(request.url ?? '');
      if (document) response.writeHead(200, { 'content-type': document.type }).end(document.body);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.agent = new Agent({ ca: pair.cert, keepAlive: false });
  }

  /** A new URL of this server answering `body`. */
  serve(body: unknown, type = 'application/json'): string {
    const path = `/sector/${randomUUID()}.json`;
    this.documents.set(path, { type, body: typeof body === 'string' ? body : JSON.stringify(body) });
    return `${this.origin}${path}`;
  }

  async stop(): Promise<void> {
    this.agent?.destroy();
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A pairwise client's record, with a new client_id. */
const pairwiseRecord = (sectorUri: string | undefined, redirects = [REDIRECT_URI, ELSEWHERE], extra: Record<string, unknown> = {}) => ({
  client_id: `c-${randomUUID()}`,
  redirect_uris: redirects,
  grant_types: ['authorization_code', 'password'],
  scope: 'openid',
  subject_type: 'pairwise',
  ...(sectorUri === undefined ? {} : { sector_identifier_uri: sectorUri }),
  ...extra,
});

/** OpenID Connect Registration §5, CONTRACT.md §13: a pairwise client's sector, checked wherever a client record is written. */
describe('sector_identifier_uri', () => {
  let server: SectorServer;
  let t: TestApp;
  let realm: string;

  beforeAll(async () => {
    server = new SectorServer();
    await server.start();
    const outbound = new OutboundFetcher({ allow: ['127.0.0.1'] });
    t = await startTestApp({ sectorIdentifiers: new SectorIdentifierFetcher({ outbound, agent: server.agent, timeoutMs: 15_000 }) });
    realm = await freshRealm(t, NO_RATE_LIMITS);
  });
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  const pairwise = pairwiseRecord;

  /** A refused admin create: 400 naming the field and the problem, and no client written. */
  async function refusedCreate(record: ReturnType<typeof pairwise>, problem: RegExp): Promise<void> {
    const response = await t.admin.request('POST', `/realms/${realm}/clients`, record);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error_description).toMatch(/sector_identifier_uri/);
    expect(response.json().error_description).toMatch(problem);
    expect((await t.admin.request('GET', `/realms/${realm}/clients/${record.client_id}`)).statusCode).toBe(404);
  }

  it('is refused at create when it lacks a redirect URI, is not https, not JSON or not an array, answers an error, or cannot be reached', async () => {
    await refusedCreate(pairwise(server.serve([REDIRECT_URI])), /does not list every redirect URI/);
    await refusedCreate(pairwise(server.serve([REDIRECT_URI, ELSEWHERE]).replace('https:', 'http:')), /https/);
    await refusedCreate(pairwise(server.serve('<html>not json</html>', 'text/html')), /not JSON/);
    await refusedCreate(pairwise(server.serve({ redirect_uris: [REDIRECT_URI, ELSEWHERE] })), /not a JSON array/);
    await refusedCreate(pairwise(`${server.origin}/missing.json`), /HTTP 404/);
    await refusedCreate(pairwise(`https://127.0.0.1:${await freePort()}/sector.json`), /could not be fetched/);
  });

  it('without it, a pairwise client\'s redirect URIs must share one host; with it, its host is the sector of every client that names it', async () => {
    const response = await t.admin.request('POST', `/realms/${realm}/clients`, pairwise(undefined));
    expect(response.statusCode).toBe(400);
    expect(response.json().error_description).toMatch(/sector_identifier_uri: the redirect_uris of a pairwise client have several hosts/);
    const noRedirects = await t.admin.request('POST', `/realms/${realm}/clients`, pairwise(undefined, [], { grant_types: ['password'] }));
    expect(noRedirects.json().error_description).toMatch(/sector_identifier_uri: a pairwise client needs it/);

    const sector = server.serve([REDIRECT_URI, ELSEWHERE, 'https://third.example/cb']);
    const first = await t.admin.createClient(realm, pairwise(sector));
    const second = await t.admin.createClient(realm, pairwise(sector, ['https://third.example/cb']));
    expect(first).toMatchObject({ subject_type: 'pairwise', sector_identifier_uri: sector });
    const person = await createUser(t.admin, realm, 'sector-person');
    const subOf = async (client: { client_id: string; client_secret?: unknown }) => {
      const tokens = await passwordTokens(t.app, realm, { clientId: client.client_id, secret: client.client_secret as string }, person, 'openid');
      return JSON.parse(Buffer.from(tokens.id_token!.split('.')[1]!, 'base64url').toString()).sub as string;
    };
    const sub = await subOf(first);
    expect(sub).toBe(await subOf(second));
    expect(sub).not.toBe(person.sub);
  });

  it('is fetched again at update when it or the redirect URIs change, and a refused update changes nothing', async () => {
    const sector = server.serve([REDIRECT_URI, ELSEWHERE]);
    const created = await t.admin.createClient(realm, pairwise(sector));
    const path = `/realms/${realm}/clients/${created.client_id}`;
    const added = await t.admin.request('PATCH', path, { redirect_uris: [REDIRECT_URI, ELSEWHERE, 'https://unlisted.example/cb'] });
    expect(added.statusCode).toBe(400);
    expect(added.json().error_description).toMatch(/sector_identifier_uri: its document does not list every redirect URI/);
    const moved = await t.admin.request('PATCH', path, { sector_identifier_uri: server.serve([REDIRECT_URI]) });
    expect(moved.statusCode).toBe(400);
    expect((await t.admin.request('GET', path)).json()).toMatchObject({ redirect_uris: [REDIRECT_URI, ELSEWHERE], sector_identifier_uri: sector });
    // Another change keeps it, unfetched; clearing it needs redirect URIs of one host.
    expect((await t.admin.request('PATCH', path, { client_name: 'Renamed' })).statusCode).toBe(200);
    expect((await t.admin.request('PATCH', path, { sector_identifier_uri: null })).statusCode).toBe(400);
    expect((await t.admin.request('PATCH', path, { sector_identifier_uri: null, redirect_uris: [REDIRECT_URI] })).json()).not.toHaveProperty('sector_identifier_uri');
  });

  it('dynamic registration refuses it with invalid_client_metadata, and registers a valid one', async () => {
    const registration = await freshRealm(t, { ...NO_RATE_LIMITS, open_registration: true });
    const register = (body: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: `${realmPath(registration)}/connect/register`, headers: { 'content-type': 'application/json' }, payload: body });
    const body = { redirect_uris: [REDIRECT_URI, ELSEWHERE], subject_type: 'pairwise' };
    const refused = await register({ ...body, sector_identifier_uri: server.serve([ELSEWHERE]) });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringMatching(/^sector_identifier_uri: its document does not list/) });
    expect((await register(body)).json()).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringMatching(/sector_identifier_uri/) });
    const sector = server.serve([REDIRECT_URI, ELSEWHERE]);
    const registered = await register({ ...body, sector_identifier_uri: sector });
    expect(registered.statusCode, registered.body).toBe(201);
    expect(registered.json()).toMatchObject({ subject_type: 'pairwise', sector_identifier_uri: sector });
  });

  it('a realm import refuses it at the entry that sets it, and imports nothing', async () => {
    const name = `import-${randomUUID().slice(0, 8)}`;
    const entry = { ...pairwise(server.serve([REDIRECT_URI])), client_type: 'confidential' };
    const imported = await t.admin.request('PUT', `/realms/${name}/import`, { clients: [entry] });
    expect(imported.statusCode, imported.body).toBe(400);
    expect(imported.json().error_description).toMatch(/^clients\.0\.sector_identifier_uri: its document does not list every redirect URI/);
    expect((await t.admin.request('GET', `/realms/${name}`)).statusCode).toBe(404);
    const valid = { ...entry, sector_identifier_uri: server.serve([REDIRECT_URI, ELSEWHERE]) };
    expect((await t.admin.request('PUT', `/realms/${name}/import`, { clients: [valid] })).statusCode).toBe(201);
    const exported = await t.admin.request('GET', `/realms/${name}/export`);
    expect(exported.json().clients[0]).toMatchObject({ subject_type: 'pairwise', sector_identifier_uri: valid.sector_identifier_uri });
  });
});

describe('sector_identifier_uri and the SSRF guard', () => {
  let server: SectorServer;
  let t: TestApp;

  beforeAll(async () => {
    server = new SectorServer();
    await server.start();
    // No OUTBOUND_ALLOW: loopback, private and link-local addresses are refused.
    t = await startTestApp({ sectorIdentifiers: new SectorIdentifierFetcher({ outbound: new OutboundFetcher(), agent: server.agent }) });
  });
  afterAll(async () => {
    await t?.close();
    await server?.stop();
  });

  it('is refused when it points inside, whatever the document would say', async () => {
    const realm = await freshRealm(t);
    for (const uri of [server.serve([REDIRECT_URI, ELSEWHERE]), 'https://169.254.169.254/latest/meta-data', 'https://localhost/sector.json']) {
      const response = await t.admin.request('POST', `/realms/${realm}/clients`, pairwiseRecord(uri));
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error_description).toMatch(/sector_identifier_uri: must not point at a loopback, private/);
    }
  });
});

