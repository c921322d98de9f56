#!/usr/bin/env node
// An MCP server (Model Context Protocol, Streamable HTTP transport) protected by realmgate:
// every request to MCP_URL needs an access token of the realm whose audience is MCP_URL
// (RFC 8707) and the scope notes:read; calling the tool add_note needs notes:write as well,
// and a token without it is answered 403 insufficient_scope, which MCP clients take as the
// cue to ask the person for more (step-up). realmgate/resource-server verifies the tokens and
// describes the server at /.well-known/oauth-protected-resource (RFC 9728), from which MCP
// clients find the realm, register themselves and sign the person in.
//
//   node examples/mcp/server.mjs
//
// Settings (environment): ISSUER (http://localhost:9000/oauth2/notes), MCP_URL
// (http://localhost:4100/mcp: the server's public URL and resource identifier; it listens on
// its port, or MCP_PORT), LOG_LEVEL (info).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import Fastify from 'fastify';
import { resourceServer } from 'realmgate/resource-server';
import { z } from 'zod';

const issuer = process.env.ISSUER ?? 'http://localhost:9000/oauth2/notes';
const mcpUrl = new URL(process.env.MCP_URL ?? 'http://localhost:4100/mcp');
const port = Number(process.env.MCP_PORT ?? (mcpUrl.port || 4100));
const READ = 'notes:read';
const WRITE = 'notes:write';

const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } });
// The resource is both the audience tokens must name and the `resource` of the metadata document.
await app.register(resourceServer, { issuer, resource: mcpUrl.href, scopes: [READ, WRITE] });

/** Notes by the `sub` of the person (or service) who wrote them. */
const notes = new Map();
const notesOf = (sub) => notes.get(sub) ?? [];
const text = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });

/** One MCP server per request: the transport runs stateless, without sessions, so any instance may answer. */
function mcpServer() {
  const server = new McpServer({ name: 'realmgate-notes', version: '1.0.0' });
  server.registerTool(
    'whoami',
    { description: 'Who the access token speaks for: its subject, client, scopes and audience', inputSchema: {} },
    async (_args, { authInfo }) => text(authInfo.extra.whoami),
  );
  server.registerTool(
    'add_note',
    { description: `Saves a note for the signed-in person (needs the scope ${WRITE})`, inputSchema: { text: z.string().min(1).max(500) } },
    async ({ text: body }, { authInfo }) => {
      const { sub } = authInfo.extra.whoami;
      const note = { id: notesOf(sub).length + 1, text: body };
      notes.set(sub, [...notesOf(sub), note]);
      return text({ note, count: notesOf(sub).length });
    },
  );
  return server;
}

/** Whether a JSON-RPC message (or batch) calls the tool `name`. */
const callsTool = (body, name) => (Array.isArray(body) ? body : [body]).some((message) => message?.method === 'tools/call' && message.params?.name === name);

const requireRead = app.requireToken({ scope: READ });
// The route's hook has let the request in with notes:read; add_note asks for both scopes, so that
// the challenge's `scope` names all that the client must ask for again (MCP scope step-up).
const requireWrite = app.requireToken({ scope: [READ, WRITE] });

app.post(
  mcpUrl.pathname,
  {
    onRequest: requireRead,
    preHandler: async (request, reply) => (callsTool(request.body, 'add_note') ? requireWrite(request, reply) : undefined),
  },
  async (request, reply) => {
    const { token } = request;
    // The transport hands `auth` to the tools as `authInfo` (the SDK's AuthInfo).
    request.raw.auth = {
      token: request.headers.authorization.replace(/^\S+\s+/, ''),
      clientId: token.client_id,
      scopes: (token.scope ?? '').split(' ').filter(Boolean),
      expiresAt: token.exp,
      resource: mcpUrl,
      extra: { whoami: { sub: token.sub, client_id: token.client_id, scope: token.scope, aud: token.aud } },
    };
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  },
);

// Without sessions there is no stream to open (GET) nor session to end (DELETE).
for (const method of ['GET', 'DELETE']) {
  app.route({
    method,
    url: mcpUrl.pathname,
    onRequest: requireRead,
    handler: async (_request, reply) =>
      reply.code(405).header('allow', 'POST').send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server has no sessions' }, id: null }),
  });
}

app.get('/healthz', async () => ({ status: 'ok' }));

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => app.close().then(() => process.exit(0)));
}
await app.listen({ port, host: '127.0.0.1' });
console.log(`MCP server at ${mcpUrl.href} for tokens of ${issuer}`);
