// The ceiling: bare Fastify routes that parse the same requests and answer what the bench
// checks, with no client authentication, storage, crypto or password check: the most this
// machine serves over HTTP from one Node.js process. Configured by PORT.
//
// POST /token and /introspect answer one small JSON that passes the checks made of a token
// response and of an introspection response. The browser flow goes through the same hops as
// realmgate's: /authorize → sign-in page → consent page (skipped without `prompt=consent`, as
// a remembered consent) → the redirect URI with `code`, `state` and `iss`. What a hop must
// carry travels in the `tx` query parameter, nothing is kept.
import formBody from '@fastify/formbody';
import Fastify from 'fastify';

const issuer = `http://127.0.0.1:${process.env.PORT}`;
const app = Fastify({ logger: false });
await app.register(formBody);

const tokens = async (request) => ({
  active: true,
  access_token: 'ceiling',
  refresh_token: 'ceiling',
  id_token: 'ceiling',
  token_type: 'Bearer',
  expires_in: 3600,
  parameters: Object.keys(request.body ?? {}).length,
});
app.post('/token', tokens);
app.post('/introspect', tokens);

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title, form) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1><form method="post">${form}</form></body></html>`;
const tx = (query) => String(query.tx ?? '');
const open = (value) => JSON.parse(Buffer.from(value, 'base64url').toString());

app.get('/authorize', async (request, reply) => {
  const { state, redirect_uri: redirectUri, prompt = '' } = request.query;
  const value = Buffer.from(JSON.stringify({ state, redirectUri, consent: prompt.split(' ').includes('consent') })).toString('base64url');
  return reply.code(303).header('location', `/login?tx=${value}`).send();
});
app.get('/login', async (request, reply) =>
  reply
    .type('text/html')
    .send(page('Sign in', `<input type="hidden" name="tx" value="${escape(tx(request.query))}"><input name="username"><input type="password" name="password"><button>Sign in</button>`)),
);
app.get('/consent', async (request, reply) =>
  reply
    .type('text/html')
    .send(page('Allow access', `<input type="hidden" name="tx" value="${escape(tx(request.query))}"><button name="decision" value="allow">Allow</button>`)),
);
const toClient = (reply, { redirectUri, state }) =>
  reply.code(303).header('location', `${redirectUri}?${new URLSearchParams({ code: 'ceiling', state, iss: issuer })}`).send();
app.post('/login', async (request, reply) => {
  const transaction = open(tx(request.query));
  if (transaction.consent) return reply.code(303).header('location', `/consent?tx=${tx(request.query)}`).send();
  return toClient(reply, transaction);
});
app.post('/consent', async (request, reply) => toClient(reply, open(tx(request.query))));

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
