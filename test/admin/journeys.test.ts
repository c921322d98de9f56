import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JourneyListResponse, JourneySchema } from '../../src/admin/openapi/journey-schema.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { expectAdminError } from './helpers.js';

/** The admin side of authentication journeys (CONTRACT.md §8): store, read, list, delete, and what may name one. */

const TWO_STEPS = {
  start: 'pw',
  nodes: { pw: { type: 'password', next: { success: 'otp' } }, otp: { type: 'otp', next: { success: 'done' } } },
};

/** Every node type the engine runs, so that the answers are held to the documented schema for each. */
const EVERY_NODE = {
  start: 'how',
  nodes: {
    how: { type: 'choice', options: [{ label: 'Password', next: 'pw' }, { label: 'Passkey', next: 'key' }] },
    key: { type: 'passkey', next: { success: 'done', unavailable: 'pw' }, enrol: true },
    pw: { type: 'password', next: { success: 'app' } },
    app: { type: 'condition', if: { client_in: ['shop-web'] }, next: { true: 'has', false: 'done' } },
    has: { type: 'condition', if: 'has_otp', next: { true: 'risk', false: 'no' } },
    risk: { type: 'risk', next: { low: 'done', high: 'otp' } },
    otp: { type: 'otp', next: { success: 'done' } },
    no: { type: 'deny' },
  },
};

describe('admin API: journeys', () => {
  let t: TestApp;
  let count = 0;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function freshRealm(settings: Record<string, unknown> = {}): Promise<string> {
    const name = `journeys-${++count}`;
    await t.admin.createRealm(name, settings);
    return name;
  }
  const journeyUrl = (realm: string, name?: string) => `/realms/${realm}/journeys${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
  const put = (realm: string, name: string, journey: unknown) => t.admin.request('PUT', journeyUrl(realm, name), journey);
  const get = (realm: string, name: string) => t.admin.request('GET', journeyUrl(realm, name));
  const remove = (realm: string, name: string) => t.admin.request('DELETE', journeyUrl(realm, name));
  const list = async (realm: string) => {
    const response = await t.admin.request('GET', journeyUrl(realm));
    expect(response.statusCode, response.body).toBe(200);
    return JourneyListResponse.parse(response.json()).journeys;
  };

  it('lists default, made from the authentication setting, until a journey is stored', async () => {
    const realm = await freshRealm({ authentication: ['password', 'otp'] });
    const fromSettings = {
      start: 'password',
      nodes: { password: { type: 'password', next: { success: 'otp' } }, otp: { type: 'otp', next: { success: 'done' } } },
    };
    expect(await list(realm)).toEqual([{ name: 'default', journey: fromSettings }]);
    const derived = await get(realm, 'default');
    expect(derived.statusCode).toBe(200);
    expect(derived.json()).toEqual(fromSettings);
  });

  it('PUT stores a journey (201), replaces it (200), and GET and the list answer it as stored', async () => {
    const realm = await freshRealm();
    const created = await put(realm, 'strong', EVERY_NODE);
    expect(created.statusCode, created.body).toBe(201);
    expect(JourneySchema.parse(created.json())).toEqual(EVERY_NODE);

    const replaced = await put(realm, 'strong', TWO_STEPS);
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toEqual(TWO_STEPS);
    expect((await get(realm, 'strong')).json()).toEqual(TWO_STEPS);

    expect((await put(realm, 'a.first_one-1', EVERY_NODE)).statusCode).toBe(201);
    expect(await list(realm)).toEqual([
      { name: 'default', journey: { start: 'password', nodes: { password: { type: 'password', next: { success: 'done' } } } } },
      { name: 'a.first_one-1', journey: EVERY_NODE },
      { name: 'strong', journey: TWO_STEPS },
    ]);
  });

  it('PUT default replaces the one made from the settings (200, it existed); deleting it brings that one back', async () => {
    const realm = await freshRealm();
    const derived = (await get(realm, 'default')).json();
    const stored = await put(realm, 'default', TWO_STEPS);
    expect(stored.statusCode).toBe(200);
    expect((await get(realm, 'default')).json()).toEqual(TWO_STEPS);
    expect((await list(realm)).map(({ name }) => name)).toEqual(['default']);

    // A client and an acr value naming default do not keep it: default always exists.
    await t.admin.createClient(realm, { client_id: 'app', grant_types: ['client_credentials'], journey: 'default' });
    expect((await t.admin.request('PATCH', `/realms/${realm}`, { settings: { acr_journeys: { silver: 'default' } } })).statusCode).toBe(200);
    const deleted = await remove(realm, 'default');
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(deleted.body).toBe('');
    expect((await get(realm, 'default')).json()).toEqual(derived);
    expectAdminError(await remove(realm, 'default'), 404, 'not_found');
  });

  it('PUT refuses a journey the engine cannot run with invalid_request naming the node, and stores nothing', async () => {
    const realm = await freshRealm();
    const cases: Array<[unknown, RegExp]> = [
      [{ start: 'pw', nodes: { pw: { type: 'password', next: { success: 'nowhere' } } } }, /^node "pw": outcome "success" leads to "nowhere", which is no node$/],
      [{ start: 'pw', nodes: { pw: { type: 'password', next: { success: 'done' } }, x: { type: 'teleport' } } }, /^node "x": unknown type "teleport"$/],
      [{ start: 'otp', nodes: { otp: { type: 'otp', next: { success: 'done' } } } }, /^node "otp": .*before a password or passkey node/],
      [{ start: 'pw', nodes: { pw: { type: 'password', next: {} } } }, /^node "pw": outcome "success" is not connected$/],
      [['not', 'a', 'journey'], /a journey is an object/],
      [{ start: 'pw', nodes: { pw: { type: 'password', next: { success: 'done' } } }, colour: 'blue' }, /unknown field "colour"/],
    ];
    for (const [journey, message] of cases) {
      const response = await put(realm, 'bad', journey);
      expectAdminError(response, 400, 'invalid_request');
      expect(response.json().error_description).toMatch(message);
    }
    expectAdminError(await t.admin.request('PUT', journeyUrl(realm, 'bad')), 400, 'invalid_request');
    expectAdminError(await get(realm, 'bad'), 404, 'not_found');
    expect((await list(realm)).map(({ name }) => name)).toEqual(['default']);
  });

  it('PUT refuses a name that is not a journey name (400), and answers 404 for an unknown realm or journey', async () => {
    const realm = await freshRealm();
    for (const name of ['two words', 'x'.repeat(65), 'a/b', 'é']) {
      const response = await put(realm, name, TWO_STEPS);
      expectAdminError(response, 400, 'invalid_request');
      expect(response.json().error_description).toMatch(/^journey: must be a journey name/);
    }
    expectAdminError(await get(realm, 'missing'), 404, 'not_found');
    expectAdminError(await remove(realm, 'missing'), 404, 'not_found');
    expectAdminError(await t.admin.request('GET', journeyUrl('no-such-realm')), 404, 'not_found');
    expectAdminError(await put('no-such-realm', 'strong', TWO_STEPS), 404, 'not_found');
  });

  it('DELETE refuses (409) a journey a client or the realm\'s acr_journeys names, saying which, then deletes it once they let go', async () => {
    const realm = await freshRealm();
    await put(realm, 'strong', TWO_STEPS);
    await t.admin.createClient(realm, { client_id: 'shop-web', grant_types: ['client_credentials'], journey: 'strong' });
    await t.admin.createClient(realm, { client_id: 'shop-api', grant_types: ['client_credentials'], journey: 'strong' });
    expect((await t.admin.request('PATCH', `/realms/${realm}`, { settings: { acr_journeys: { gold: 'strong' } } })).statusCode).toBe(200);

    const both = await remove(realm, 'strong');
    expectAdminError(both, 409, 'conflict');
    expect(both.json().error_description).toMatch(/clients shop-api shop-web.*acr values gold/);

    for (const clientId of ['shop-web', 'shop-api']) {
      expect((await t.admin.request('PATCH', `/realms/${realm}/clients/${clientId}`, { journey: null })).statusCode).toBe(200);
    }
    const acrOnly = await remove(realm, 'strong');
    expectAdminError(acrOnly, 409, 'conflict');
    expect(acrOnly.json().error_description).not.toContain('shop-');
    expect(acrOnly.json().error_description).toContain('gold');

    expect((await t.admin.request('PATCH', `/realms/${realm}`, { settings: { acr_journeys: {} } })).statusCode).toBe(200);
    expect((await remove(realm, 'strong')).statusCode).toBe(204);
    expectAdminError(await get(realm, 'strong'), 404, 'not_found');
  });

  it('a realm\'s acr_journeys must name journeys it has, at creation and on change', async () => {
    const refusedAtCreation = await t.admin.request('POST', '/realms', { name: 'journeys-acr', settings: { acr_journeys: { gold: 'strong' } } });
    expectAdminError(refusedAtCreation, 400, 'invalid_request');
    expect(refusedAtCreation.json().error_description).toMatch(/acr_journeys: "gold" names the journey "strong"/);
    expectAdminError(await t.admin.request('GET', '/realms/journeys-acr'), 404, 'not_found');
    expect((await t.admin.request('POST', '/realms', { name: 'journeys-acr', settings: { acr_journeys: { bronze: 'default' } } })).statusCode).toBe(201);

    const refused = await t.admin.request('PATCH', '/realms/journeys-acr', { settings: { acr_journeys: { bronze: 'default', gold: 'strong' } } });
    expectAdminError(refused, 400, 'invalid_request');
    expect(refused.json().error_description).toContain('"strong"');
    await put('journeys-acr', 'strong', TWO_STEPS);
    const accepted = await t.admin.request('PATCH', '/realms/journeys-acr', { settings: { acr_journeys: { bronze: 'default', gold: 'strong' } } });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().settings.acr_journeys).toEqual({ bronze: 'default', gold: 'strong' });
    // A change that does not touch the mapping is not held up by it.
    expect((await t.admin.request('PATCH', '/realms/journeys-acr', { settings: { code_lifetime: 60 } })).statusCode).toBe(200);
  });

  it('a client\'s journey must be one the realm has, at creation and on change; null clears it', async () => {
    const realm = await freshRealm();
    const refused = await t.admin.request('POST', `/realms/${realm}/clients`, { client_id: 'app', grant_types: ['client_credentials'], journey: 'strong' });
    expectAdminError(refused, 400, 'invalid_request');
    expect(refused.json().error_description).toBe('journey: the realm has no journey "strong"');
    expectAdminError(await t.admin.request('GET', `/realms/${realm}/clients/app`), 404, 'not_found');

    await put(realm, 'strong', TWO_STEPS);
    expect((await t.admin.createClient(realm, { client_id: 'app', grant_types: ['client_credentials'], journey: 'strong' })).journey).toBe('strong');
    const patchRefused = await t.admin.request('PATCH', `/realms/${realm}/clients/app`, { journey: 'weak' });
    expectAdminError(patchRefused, 400, 'invalid_request');
    expect(patchRefused.json().error_description).toContain('"weak"');
    expect((await t.admin.request('GET', `/realms/${realm}/clients/app`)).json().journey).toBe('strong');
    expect((await t.admin.request('PATCH', `/realms/${realm}/clients/app`, { journey: 'default' })).json().journey).toBe('default');
    const cleared = await t.admin.request('PATCH', `/realms/${realm}/clients/app`, { journey: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).not.toHaveProperty('journey');
  });

  it('records journey.saved and journey.deleted audit events, naming the journey', async () => {
    const realm = await freshRealm();
    await put(realm, 'strong', TWO_STEPS);
    await put(realm, 'strong', TWO_STEPS);
    await put(realm, 'bad', {});
    await remove(realm, 'strong');
    const events = (await t.admin.request('GET', `/realms/${realm}/events?type=journey.saved,journey.deleted`)).json().events as Array<{ type: string; details: unknown }>;
    expect(events.map(({ type, details }) => ({ type, details }))).toEqual([
      { type: 'journey.deleted', details: { journey: 'strong' } },
      { type: 'journey.saved', details: { journey: 'strong' } },
      { type: 'journey.saved', details: { journey: 'strong' } },
    ]);
  });
});
