// node-oidc-provider as the peer: its in-memory adapter, one confidential client,
// client credentials and introspection. Configured by PORT, CLIENT_ID, CLIENT_SECRET.
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

const { PORT, CLIENT_ID, CLIENT_SECRET } = process.env;
const issuer = `http://127.0.0.1:${PORT}`;

// Own signing key and cookie keys, so that it does not run on its development defaults.
const { privateKey } = await generateKeyPair('RS256', { extractable: true });

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'api',
    },
  ],
  scopes: ['api'],
  jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig' }] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  features: {
    clientCredentials: { enabled: true },
    // The rule realmgate applies: a client introspects the tokens issued to it.
    introspection: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
    devInteractions: { enabled: false },
    // Requests carry no `resource`, so no resource server is chosen and the access token
    // is opaque, stored by the adapter: the same kind of token realmgate issues.
    resourceIndicators: { enabled: true },
  },
  // realmgate's default access_token_lifetime.
  ttl: { ClientCredentials: 3600 },
});

const server = provider.listen(Number(PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
