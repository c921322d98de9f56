import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { PASSWORD_HASHING } from '../../src/authn/password-hashing.js';
import { checkActive } from '../oauth.js';
import { freePort, pinServer, startProcess, stopProcess, waitForHttp } from '../processes.js';
import { REDIRECT_URI, SCOPE } from './flow-client.js';
import type { Target, TargetOptions } from './target.js';

const PEER = fileURLToPath(new URL('../peers/oidc-provider.mjs', import.meta.url));

const secret = (): string => randomBytes(32).toString('base64url');

/** node-oidc-provider with its in-memory adapter (bench/peers/oidc-provider.mjs). */
export async function startOidcProvider(options: TargetOptions): Promise<Target> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const service = { clientId: 'bench-service', clientSecret: secret() };
  const web = { clientId: 'bench-web', clientSecret: secret() };
  const argon2 = PASSWORD_HASHING; // argon2id: the peer sets the type itself
  const child = startProcess('oidc-provider', process.execPath, [PEER], {
    ...process.env,
    NODE_ENV: 'production', // as deployed (Koa's error output)
    PORT: String(port),
    TOKEN_FORMAT: options.tokens,
    SERVICE_CLIENT_ID: service.clientId,
    SERVICE_CLIENT_SECRET: service.clientSecret,
    WEB_CLIENT_ID: web.clientId,
    WEB_CLIENT_SECRET: web.clientSecret,
    REDIRECT_URI,
    USERS: options.usernames.join(','),
    PASSWORD: options.password,
    ARGON2: JSON.stringify(argon2),
  });
  await waitForHttp(`${issuer}/.well-known/openid-configuration`, child);
  await pinServer(child.pid);
  const introspectionUrl = `${issuer}/token/introspection`;
  const keys = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  return {
    pid: child.pid,
    tokenUrl: `${issuer}/token`,
    introspectionUrl,
    service,
    flow: { issuer, authorizeUrl: `${issuer}/auth`, tokenUrl: `${issuer}/token`, client: web, redirectUri: REDIRECT_URI, scope: SCOPE, password: options.password },
    checkAccessToken: async (token, client) => {
      if (options.tokens === 'opaque') return checkActive(introspectionUrl, client, token);
      await jwtVerify(token, keys, { issuer, typ: 'at+jwt' });
    },
    stop: () => stopProcess(child),
  };
}
