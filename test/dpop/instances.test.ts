import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminClient, BASE_URL, NO_RATE_LIMITS, startTwoInstances } from '../support/app.js';
import { DpopKey } from '../support/dpop.js';
import { type ServiceClient, basic, postForm, realmPath } from '../support/oauth.js';

/**
 * Two instances over one database, as behind a load balancer (on PostgreSQL each with its own
 * pool): a proof's jti is spent once whichever instance sees it, and a nonce one instance hands
 * out is accepted by the other, though the instances share nothing but the database and
 * MASTER_KEY (src/dpop/nonces.ts).
 */
describe('DPoP across instances', () => {
  let a: FastifyInstance;
  let b: FastifyInstance;
  let close: () => Promise<void>;
  let service: ServiceClient;
  let nonceService: ServiceClient;
  const url = (realm: string) => `${BASE_URL}${realmPath(realm)}/access_token`;
  const token = (app: FastifyInstance, realm: string, client: ServiceClient, dpop: string) =>
    postForm(app, `${realmPath(realm)}/access_token`, { grant_type: 'client_credentials', scope: 'api' }, {
      authorization: basic(client.clientId, client.secret),
      dpop,
    });

  beforeAll(async () => {
    ({ a, b, close } = await startTwoInstances());
    const admin = new AdminClient(a);
    await admin.createRealm('shared', NO_RATE_LIMITS);
    service = await admin.serviceClient('shared', 'api');
    await admin.createRealm('nonces', { ...NO_RATE_LIMITS, dpop_nonce: true });
    nonceService = await admin.serviceClient('nonces', 'api');
  });
  afterAll(() => close());

  it('refuses at one instance a proof the other accepted', async () => {
    const key = await DpopKey.generate();
    const proof = await key.proof('POST', url('shared'));
    const first = await token(a, 'shared', service, proof);
    expect(first.statusCode, first.body).toBe(200);
    const replay = await token(b, 'shared', service, proof);
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toEqual({ error: 'invalid_dpop_proof', error_description: expect.stringMatching(/used before/) });
  });

  it('of one proof sent to both at once, exactly one is accepted', async () => {
    for (let round = 0; round < 5; round++) {
      const key = await DpopKey.generate();
      const proof = await key.proof('POST', url('shared'));
      const answers = await Promise.all([token(a, 'shared', service, proof), token(b, 'shared', service, proof), token(a, 'shared', service, proof)]);
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400, 400]);
    }
  });

  it('of one proof sent 20 times at once, half to each instance, exactly one gets a token', async () => {
    const key = await DpopKey.generate();
    const proof = await key.proof('POST', url('shared'));
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => token(i % 2 ? a : b, 'shared', service, proof)));
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 400)).toHaveLength(19);
  });

  it("accepts at one instance the nonce the other handed out", async () => {
    const key = await DpopKey.generate();
    const challenge = await token(a, 'nonces', nonceService, await key.proof('POST', url('nonces')));
    expect(challenge.json().error).toBe('use_dpop_nonce');
    const nonce = challenge.headers['dpop-nonce'] as string;
    const accepted = await token(b, 'nonces', nonceService, await key.proof('POST', url('nonces'), { nonce }));
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().token_type).toBe('DPoP');
  });
});
