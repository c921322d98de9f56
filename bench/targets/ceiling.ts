import { fileURLToPath } from 'node:url';
import { freePort, startProcess, stopProcess, waitForHttp } from '../processes.js';
import type { Target } from './target.js';

const PEER = fileURLToPath(new URL('../peers/ceiling.mjs', import.meta.url));

/** A bare Fastify route (bench/peers/ceiling.mjs): what this machine serves at most. */
export async function startCeiling(): Promise<Target> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/token`;
  const child = startProcess('ceiling', process.execPath, [PEER], { ...process.env, PORT: String(port) });
  await waitForHttp(url, child);
  // Credentials are sent, so requests are the same size, but not checked.
  const endpoint = { url, clientId: 'bench', clientSecret: 'ceiling-does-not-check' };
  return { token: endpoint, introspection: endpoint, stop: () => stopProcess(child) };
}
