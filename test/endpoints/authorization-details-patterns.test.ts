import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { freshRealm } from '../support/flow-helpers.js';
import { type ServiceClient, clientCredentials } from '../support/oauth.js';

/** Catastrophic for a backtracking engine: these inputs, with a mismatch at the end, take it minutes. */
const CATASTROPHIC_A = '^(a+)+$';
const CATASTROPHIC_B = '^(b|bb)+$';
const HOSTILE_A = `${'a'.repeat(32)}!`;
const HOSTILE_B = `${'b'.repeat(48)}!`;

/** A type whose schema an administrator wrote with catastrophic patterns, in `pattern`, `patternProperties` and `propertyNames`. */
const HOSTILE_TYPES = {
  letters: {
    type: 'object',
    additionalProperties: false,
    properties: {
      type: { const: 'letters' },
      value: { type: 'string', pattern: CATASTROPHIC_A },
      labels: { type: 'object', propertyNames: { pattern: CATASTROPHIC_A } },
    },
    patternProperties: { [CATASTROPHIC_B]: { type: 'string' } },
  },
};

/**
 * CONTRACT.md §13, RFC 9396 §5: a realm's type schemas are applied to anyone's request. Their
 * patterns are matched in time linear in the input, so no pattern an administrator writes makes
 * a request with `authorization_details` slow; what cannot be matched so is refused when set.
 */
describe('the patterns of authorization_details schemas', () => {
  let t: TestApp;
  let realm: string;
  let service: ServiceClient;

  beforeAll(async () => {
    t = await startTestApp({ listen: false });
    realm = await freshRealm(t, { ...NO_RATE_LIMITS, authorization_details_types: HOSTILE_TYPES });
    service = await t.admin.serviceClient(realm, '', { authorization_details_types: ['letters'] });
  });
  afterAll(() => t?.close());

  /** A client credentials request carrying `entry`, and how long it took. */
  const ask = async (entry: Record<string, unknown>) => {
    const started = performance.now();
    const response = await clientCredentials(t.app, realm, service, { authorization_details: JSON.stringify([{ type: 'letters', ...entry }]) });
    return { response, elapsed: performance.now() - started };
  };

  it.each([
    ['pattern', { value: HOSTILE_A }],
    ['propertyNames', { labels: { [HOSTILE_A]: 'x' } }],
    ['patternProperties', { [HOSTILE_B]: 'x' }],
  ])('answers a catastrophic input to %s at once: refused, nothing issued', async (_, entry) => {
    const { response, elapsed } = await ask(entry);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_authorization_details' });
    expect(response.json()).not.toHaveProperty('access_token');
    // A backtracking engine takes minutes here; the linear one, a millisecond or so.
    expect(elapsed).toBeLessThan(5_000);
  });

  it('still matches what the patterns describe', async () => {
    for (const entry of [{ value: 'aaaa' }, { labels: { aaa: 'x' } }, { bbb: 'x' }]) {
      const { response } = await ask(entry);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().authorization_details).toEqual([{ type: 'letters', ...entry }]);
    }
  });

  it('refuses a string or a key longer than 1000 characters, whatever the schema', async () => {
    for (const entry of [{ value: 'a'.repeat(1001) }, { labels: { ['a'.repeat(1001)]: 'x' } }]) {
      const { response } = await ask(entry);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 'invalid_authorization_details', error_description: expect.stringContaining('longer than 1000') });
    }
    expect((await ask({ value: 'a'.repeat(1000) })).response.statusCode).toBe(200);
  });

  it.each([
    ['a backreference', '^(a)\\1$'],
    ['a lookahead', '^(?=a)a+$'],
    ['a lookbehind', '(?<!b)a'],
    ['a repetition written out beyond the limit', '^a{5000}$'],
    ['an invalid expression', '^(a'],
  ])('refuses a schema whose pattern uses %s, and changes nothing', async (_, pattern) => {
    for (const schema of [
      { type: 'object', properties: { value: { type: 'string', pattern } } },
      { type: 'object', patternProperties: { [pattern]: { type: 'string' } } },
    ]) {
      const refused = await t.admin.request('PATCH', `/realms/${realm}`, { settings: { authorization_details_types: { ...HOSTILE_TYPES, other: schema } } });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('other') });
    }
    const read = await t.admin.request('GET', `/realms/${realm}`);
    expect(read.json().settings.authorization_details_types).toEqual(HOSTILE_TYPES);
  });
});
