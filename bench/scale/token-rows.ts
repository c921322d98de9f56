import { createHash } from 'node:crypto';
import type pg from 'pg';
import { log } from '../processes.js';
import { withIndexesBuiltAfter } from './table-indexes.js';

/** A confidential client of the client credentials grant, as the bench presents it. */
export interface ClientCredentials {
  readonly realm: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

/**
 * Token number `i` of a run: 256 bits in base64url (43 characters), like an issued opaque
 * token, derived from the run's seed so that the bench can present any of them while the
 * database stores only its SHA-256, as the server does.
 */
export const tokenValue = (seed: string, i: number): string => createHash('sha256').update(`${seed}:${i}`).digest('base64url');

/** Seven tokens in ten are client credentials access tokens: the ones the bench introspects. */
export const isClientCredentialsToken = (i: number): boolean => i % 10 < 7;

/** The owner of token `i` among the owners passed to `insertTokenRows`. */
export const ownerOf = <T>(i: number, owners: readonly T[]): T => owners[i % owners.length]!;

/**
 * Rows shaped like those the token endpoint writes, numbered `from`..`to`: by number, seven in
 * ten are client credentials access tokens (subject the client, scope `api`, lifetime an
 * hour), two are access tokens of the authorization code grant and one a refresh token
 * (lifetime 7 days), both for one of 5000 people (user id, sign-in time, amr, session id),
 * each with its own grant id. `expiresFrom` places the expiry: in the hour after now + that
 * interval (e.g. `1 hour`: live for the run; `-1 day`: all expired).
 */
const INSERT_TOKENS = `
  INSERT INTO tokens (token_hash, realm, client_id, client_internal_id, kind, grant_id, grant_type, subject, user_id, scope,
                      issued_at, expires_at, auth_time, amr, sid)
  SELECT sha256(convert_to(g.value, 'UTF8')), g.realm, g.client_id, g.client_internal_id,
         CASE WHEN g.i % 10 = 9 THEN 'refresh_token' ELSE 'access_token' END,
         gen_random_uuid(),
         CASE WHEN g.cc THEN 'client_credentials' ELSE 'authorization_code' END,
         CASE WHEN g.cc THEN g.client_id ELSE g.user_id::text END,
         CASE WHEN g.cc THEN NULL ELSE g.user_id END,
         CASE WHEN g.cc THEN 'api' ELSE 'openid profile' END,
         g.expires_at - g.lifetime,
         g.expires_at,
         CASE WHEN g.cc THEN NULL ELSE g.expires_at - g.lifetime END,
         CASE WHEN g.cc THEN NULL ELSE '{pwd}'::text[] END,
         CASE WHEN g.cc THEN NULL ELSE gen_random_uuid() END
    FROM (SELECT i,
                 i % 10 < 7 AS cc,
                 translate(rtrim(encode(sha256(convert_to($3 || ':' || i, 'UTF8')), 'base64'), '='), '+/', '-_') AS value,
                 md5($3 || ':user:' || (i % 5000))::uuid AS user_id,
                 ($5::text[])[1 + i % cardinality($5::text[])] AS realm,
                 ($6::text[])[1 + i % cardinality($6::text[])] AS client_id,
                 ($7::bigint[])[1 + i % cardinality($7::bigint[])] AS client_internal_id,
                 now() + $4::interval + make_interval(secs => i % 3600) AS expires_at,
                 CASE WHEN i % 10 = 9 THEN interval '7 days' ELSE interval '1 hour' END AS lifetime
            FROM generate_series($1::bigint, $2::bigint) AS i) g`;

const CHUNK = 500_000;

/** The internal ids of `owners`, in their order: passed to the insert rather than looked up for each row. */
async function internalIds(client: pg.Client, owners: readonly ClientCredentials[]): Promise<string[]> {
  const { rows } = await client.query<{ realm: string; client_id: string; internal_id: string }>(
    'SELECT realm, client_id, internal_id FROM clients WHERE (realm, client_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))',
    [owners.map((owner) => owner.realm), owners.map((owner) => owner.clientId)],
  );
  return owners.map((owner) => {
    const found = rows.find((row) => row.realm === owner.realm && row.client_id === owner.clientId);
    if (!found) throw new Error(`no client ${owner.clientId} in realm ${owner.realm}`);
    return found.internal_id;
  });
}

/**
 * Inserts token rows `from`..`to` with one `INSERT … SELECT generate_series` per half
 * million (each its own transaction, so that progress shows and a ctrl-c loses little),
 * with the table's indexes built after the rows (`withIndexesBuiltAfter`). Returns the
 * seconds it took in all, and those of the indexes.
 */
export async function insertTokenRows(
  client: pg.Client,
  options: { from: number; to: number; seed: string; owners: readonly ClientCredentials[]; expiresFrom: string },
): Promise<{ seconds: number; indexSeconds: number }> {
  const started = performance.now();
  const realms = options.owners.map((owner) => owner.realm);
  const clients = options.owners.map((owner) => owner.clientId);
  const ids = await internalIds(client, options.owners);
  const { indexSeconds } = await withIndexesBuiltAfter(client, 'tokens', async () => {
    for (let first = options.from; first <= options.to; first += CHUNK) {
      const last = Math.min(options.to, first + CHUNK - 1);
      await client.query(INSERT_TOKENS, [first, last, options.seed, options.expiresFrom, realms, clients, ids]);
      const seconds = (performance.now() - started) / 1000;
      if (options.to - options.from >= CHUNK) {
        log(`tokens ${last.toLocaleString('en')} of ${options.to.toLocaleString('en')} (${Math.round((last - options.from + 1) / seconds).toLocaleString('en')} rows/s, indexes not yet built)`);
      }
    }
    if (options.to - options.from >= CHUNK) log('tokens: building the indexes');
  });
  return { seconds: (performance.now() - started) / 1000, indexSeconds };
}
