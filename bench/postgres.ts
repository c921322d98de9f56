import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface ThrowawayDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

async function withClient(url: string, fn: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  // A connection the server ends (a cluster the scale bench stops as it cleans up) fails the
  // statement running, which `fn`'s caller hears; unheard as an event, it would end the process.
  client.on('error', () => {});
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database on the server of `serverUrl`, so that each run starts empty and with
 * its own MASTER_KEY, whatever earlier runs left behind.
 */
export async function createThrowawayDatabase(serverUrl: string): Promise<ThrowawayDatabase> {
  const name = `realmgate_bench_${randomBytes(6).toString('hex')}`;
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}
