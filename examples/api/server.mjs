#!/usr/bin/env node
// An API protected by realmgate: GET /orders needs the scope orders:read, POST /orders
// orders:write. JWT access tokens are verified offline with the realm's keys; opaque ones are
// introspected as the client API_CLIENT_ID, when it is set.
//
//   node examples/api/server.mjs
//
// Settings (environment): ISSUER (http://localhost:9000/oauth2/demo), API_CLIENT_ID and
// API_CLIENT_SECRET (unset: JWTs only), API_PORT (4000), LOG_LEVEL (info).
// `realmgate/resource-server` is this package's own export: `npm install` (or `npm run build`) builds it.
import Fastify from 'fastify';
import { resourceServer } from 'realmgate/resource-server';

const issuer = process.env.ISSUER ?? 'http://localhost:9000/oauth2/demo';
const port = Number(process.env.API_PORT ?? 4000);
const { API_CLIENT_ID: clientId, API_CLIENT_SECRET: clientSecret } = process.env;

const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } });
// The API's resource identifier (RFC 8707, RFC 9728), which the plugin requires; tokens asked
// for no resource name the issuer, and this demo takes those too.
const resource = process.env.API_RESOURCE ?? `http://localhost:${port}`;
await app.register(resourceServer, {
  issuer,
  resource,
  audience: [resource, issuer],
  ...(clientId && clientSecret ? { introspection: { clientId, clientSecret } } : {}),
});

/** Orders by the `sub` of whoever placed them: a person, or a service client. */
const orders = new Map();
const ordersOf = (sub) => orders.get(sub) ?? [];

app.get('/orders', { onRequest: app.requireToken({ scope: 'orders:read' }) }, async (request) => ({
  caller: { sub: request.token.sub, client_id: request.token.client_id, scope: request.token.scope },
  orders: ordersOf(request.token.sub),
}));

app.post('/orders', { onRequest: app.requireToken({ scope: 'orders:write' }) }, async (request, reply) => {
  const order = { id: ordersOf(request.token.sub).length + 1, item: String(request.body?.item ?? 'tea').slice(0, 100), placed_at: new Date().toISOString() };
  orders.set(request.token.sub, [...ordersOf(request.token.sub), order]);
  return reply.code(201).send(order);
});

app.get('/healthz', async () => ({ status: 'ok' }));

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => app.close().then(() => process.exit(0)));
}
await app.listen({ port, host: '127.0.0.1' });
console.log(`orders API on http://localhost:${port} for tokens of ${issuer}`);
