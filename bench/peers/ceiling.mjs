// The ceiling: a bare Fastify route that parses the same form body and answers a small
// JSON, with no client authentication, storage or crypto. Configured by PORT.
import formBody from '@fastify/formbody';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
await app.register(formBody);
// Both scenarios post here; the answer passes the checks made of a token response
// (`access_token`) and of an introspection response (`active: true`).
app.post('/token', async (request) => ({
  active: true,
  access_token: 'ceiling',
  token_type: 'Bearer',
  expires_in: 3600,
  parameters: Object.keys(request.body ?? {}).length,
}));

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
