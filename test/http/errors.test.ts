import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthError, StoreUnavailableError } from '../../src/errors.js';
import { errorHandling } from '../../src/http/error-handler.js';

/** The error handler alone: what a client sees of each kind of failure. */
describe('error handler', () => {
  const app = Fastify();

  beforeAll(async () => {
    await app.register(errorHandling);
    app.get('/oauth', async () => {
      throw new OAuthError('invalid_grant', 'the code was used');
    });
    app.get('/outage', async () => {
      throw new StoreUnavailableError('connect ECONNREFUSED 10.0.0.5:5432 password=hunter2');
    });
    app.get('/bug', async () => {
      throw new Error('column "secret" of relation "clients" hunter2');
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it('sends an OAuthError in the RFC 6749 §5.2 shape with no-store', async () => {
    const response = await app.inject({ method: 'GET', url: '/oauth' });
    expect(response.statusCode).toBe(400);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ error: 'invalid_grant', error_description: 'the code was used' });
  });

  it('answers a store outage with 503 temporarily_unavailable and Retry-After, and no detail', async () => {
    const response = await app.inject({ method: 'GET', url: '/outage' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json().error).toBe('temporarily_unavailable');
    expect(response.body).not.toContain('hunter2');
    expect(response.body).not.toContain('10.0.0.5');
  });

  it('answers any other fault with 500 server_error, without message or stack', async () => {
    const response = await app.inject({ method: 'GET', url: '/bug' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ error: 'server_error', error_description: 'an internal error occurred' });
    expect(response.body).not.toContain('hunter2');
    expect(response.body).not.toContain('at ');
  });
});
