import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { after, readDoc, runWithTourFunctions, shellBlocks } from './support.js';

/**
 * docs/dpop.md's example holds: its shell blocks, run in order by bash with the tour's shell
 * functions (README.md) against a listening server, answer what their comments say.
 */
const DOC = 'docs/dpop.md';

describe(`the example of ${DOC}`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
  });
  afterAll(() => t?.close());

  it('runs in order: a bound token, its introspection, a replayed proof refused, UserInfo by DPoP and not as a bearer token, a nonce', async () => {
    const blocks = shellBlocks(readDoc(DOC));
    expect(blocks).toHaveLength(4);
    const run = await runWithTourFunctions(blocks, t.baseUrl);
    expect(run.code, run.output).toBe(0);

    const line = (label: string): string => after(run.output, label);
    const introspection = JSON.parse(line('introspection: ')) as Record<string, unknown>;
    expect(introspection).toMatchObject({ active: true, scope: 'openid profile', client_id: 'till', username: 'dana', token_type: 'DPoP', cnf: { jkt: expect.stringMatching(/^[\w-]{43}$/) } });
    expect(JSON.parse(line('the same proof again: '))).toEqual({ error: 'invalid_dpop_proof', error_description: 'the DPoP proof was used before (its jti is spent)' });
    expect(JSON.parse(line('userinfo: '))).toMatchObject({ sub: expect.any(String), preferred_username: 'dana' });
    expect(JSON.parse(line('as a bearer token: '))).toEqual({
      error: 'invalid_token',
      error_description: 'the access token is bound to a DPoP key: send it with the DPoP scheme and a proof',
    });
    expect(line('nonce: ')).toMatch(/^[\w-]{22}$/);
    expect(line('with the nonce: ')).toBe('DPoP');
  });
});
