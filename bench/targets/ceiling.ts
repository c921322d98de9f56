import { fileURLToPath } from 'node:url';
import { freePort, pinServer, startProcess, stopProcess, waitForHttp } from '../processes.js';
import { REDIRECT_URI, SCOPE } from './flow-client.js';
import type { Target, TargetOptions } from './target.js';

const PEER = fileURLToPath(new URL('../peers/ceiling.mjs', import.meta.url));

/** Bare Fastify routes (bench/peers/ceiling.mjs): what this machine serves at most. */
export async function startCeiling(options: TargetOptions): Promise<Target> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const child = startProcess('ceiling', process.execPath, [PEER], { ...process.env, PORT: String(port) });
  await waitForHttp(`${issuer}/token`, child);
  await pinServer(child.pid);
  // Credentials are sent, so that requests are the same size, but not checked.
  const client = { clientId: 'bench', clientSecret: 'ceiling-does-not-check' };
  return {
    pid: child.pid,
    tokenUrl: `${issuer}/token`,
    introspectionUrl: `${issuer}/introspect`,
    service: client,
    flow: { issuer, authorizeUrl: `${issuer}/authorize`, tokenUrl: `${issuer}/token`, client, redirectUri: REDIRECT_URI, scope: SCOPE, password: options.password },
    checkAccessToken: async () => {}, // it issues no token
    stop: () => stopProcess(child),
  };
}
