import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { freePort, startProcess, stopProcess, waitForHttp } from '../processes.js';
import type { Target } from './target.js';

const PEER = fileURLToPath(new URL('../peers/oidc-provider.mjs', import.meta.url));

/** node-oidc-provider with its in-memory adapter (bench/peers/oidc-provider.mjs). */
export async function startOidcProvider(): Promise<Target> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const credentials = { clientId: 'bench', clientSecret: randomBytes(32).toString('base64url') };
  const child = startProcess('oidc-provider', process.execPath, [PEER], {
    ...process.env,
    NODE_ENV: 'production', // as deployed (Koa's error output)
    PORT: String(port),
    CLIENT_ID: credentials.clientId,
    CLIENT_SECRET: credentials.clientSecret,
  });
  await waitForHttp(`${issuer}/.well-known/openid-configuration`, child);
  return {
    token: { url: `${issuer}/token`, ...credentials },
    introspection: { url: `${issuer}/token/introspection`, ...credentials },
    stop: () => stopProcess(child),
  };
}
