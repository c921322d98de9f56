import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { NewAuditEvent } from '../../src/store/audit-events.js';
import type { Db } from '../../src/store/db.js';
import type { migrate as migrateFn } from '../../src/store/migrate.js';
import type { createPgDb as createPgDbFn } from '../../src/store/pg.js';
import type { NewToken, TokenStore as TokenStoreClass } from '../../src/store/tokens.js';
import { wholeNumber } from '../main.js';
import { log } from '../processes.js';
import { partDatabase } from './database.js';
import { buildOnce, fromDist } from './server.js';

/**
 * `npx tsx bench/scale/token-statement.ts`: what the token endpoint's statement costs
 * PostgreSQL when its clients are spread over many realms, without HTTP or the server. 50
 * loops write one client credentials token each, with its `token.issued` event, through the
 * build's TokenStore (the statement the server runs, batched as it batches), for clients of
 * one realm (10) or of all 10,000 realms (100,000), in alternation. Then the same with the
 * foreign key tokens → clients that migration 008 replaced, and without each structure the
 * statement maintains whose pages the spread scatters, one more removed each time: the audit
 * events' realm-first indexes, then the tokens' index by client. Tokens/s is what PostgreSQL
 * takes, with the WAL it wrote per token (bytes, and full-page images); the ratio is many
 * realms ÷ one, as in the `realms` part.
 *
 * On a throwaway database of DATABASE_URL's server, dropped at the end. The variants are
 * experiments, not proposals: each structure is there for a reason (README "Reading the numbers").
 */
const SECONDS = wholeNumber('SCALE_STATEMENT_SECONDS', 8, 1);
const ROUNDS = wholeNumber('SCALE_STATEMENT_ROUNDS', 2, 1);
const LOOPS = 50;

const VARIANTS: ReadonlyArray<{ name: string; ddl: string }> = [
  { name: 'as migrated', ddl: '' },
  {
    name: 'with the foreign key tokens → clients of before 008',
    ddl: 'ALTER TABLE tokens ADD CONSTRAINT former_key FOREIGN KEY (realm, client_id) REFERENCES clients (realm, client_id) ON DELETE CASCADE',
  },
  {
    name: "without it, nor audit_events' realm indexes",
    ddl: 'ALTER TABLE tokens DROP CONSTRAINT former_key; DROP INDEX audit_events_realm_time, audit_events_realm_type_time, audit_events_realm_client_time, audit_events_realm_user_time',
  },
  { name: '… and without tokens_client_internal_id', ddl: 'DROP INDEX tokens_client_internal_id' },
];

type Client = readonly [realm: string, clientId: string, internalId: string];

async function populate(db: Db): Promise<{ one: Client[]; many: Client[] }> {
  await db.query(`INSERT INTO realms (name) SELECT 'one' UNION ALL SELECT 'scale-' || lpad(i::text, 5, '0') FROM generate_series(1, 10000) i`);
  await db.query(`INSERT INTO clients (realm, client_id, client_secret_hash, record)
                  SELECT 'one', gen_random_uuid()::text, '\\x00'::bytea, '{}'::jsonb FROM generate_series(1, 10)
                  UNION ALL
                  SELECT 'scale-' || lpad(r::text, 5, '0'), gen_random_uuid()::text, '\\x00'::bytea, '{}'::jsonb FROM generate_series(1, 10000) r, generate_series(1, 10)`);
  await db.query('ANALYZE');
  const { rows } = await db.query<{ realm: string; client_id: string; internal_id: string }>(
    'SELECT realm, client_id, internal_id::text AS internal_id FROM clients',
  );
  const clients = rows.map((row): Client => [row.realm, row.client_id, row.internal_id]);
  return { one: clients.filter(([realm]) => realm === 'one'), many: clients.filter(([realm]) => realm !== 'one') };
}

/** What the token endpoint writes for one client credentials token. */
function issuance([realm, clientId, internalId]: Client): { token: NewToken; event: NewAuditEvent } {
  const now = new Date();
  const grantId = randomUUID();
  return {
    token: {
      hash: createHash('sha256').update(randomBytes(32)).digest(),
      realm,
      clientId,
      clientInternalId: internalId,
      kind: 'access_token',
      grantId,
      grantType: 'client_credentials',
      subject: clientId,
      userId: undefined,
      scope: 'api',
      issuedAt: now,
      expiresAt: new Date(now.getTime() + 3_600_000),
    },
    event: {
      realm,
      type: 'token.issued',
      occurredAt: now,
      clientId,
      userId: undefined,
      address: '127.0.0.1',
      details: { grant_type: 'client_credentials', grant_id: grantId, scope: 'api', tokens: ['access_token'] },
      expiresAt: new Date(now.getTime() + 90 * 86_400_000),
    },
  };
}

/** Tokens/s written by LOOPS loops for SECONDS, each on a client drawn at random. */
interface Rate {
  tokensPerSecond: number;
  /** PostgreSQL's WAL per token written, all of it (pg_stat_wal; nothing else writes meanwhile). */
  walBytes: number;
  /** Full-page images per token: the first change of a page after a checkpoint logs the whole page. */
  fullPages: number;
}

const walSoFar = async (db: Db) =>
  (await db.query<{ bytes: string; fpi: string }>('SELECT wal_bytes::text AS bytes, wal_fpi::text AS fpi FROM pg_stat_wal')).rows[0]!;

async function drive(db: Db, store: TokenStoreClass, clients: readonly Client[]): Promise<Rate> {
  const wal = await walSoFar(db);
  let written = 0;
  const started = performance.now();
  const end = started + SECONDS * 1000;
  const loop = async () => {
    while (performance.now() < end) {
      const { token, event } = issuance(clients[Math.floor(Math.random() * clients.length)]!);
      await store.insertAll([token], event);
      written++;
    }
  };
  await Promise.all(Array.from({ length: LOOPS }, loop));
  const seconds = (performance.now() - started) / 1000;
  const after = await walSoFar(db);
  return {
    tokensPerSecond: written / seconds,
    walBytes: (Number(after.bytes) - Number(wal.bytes)) / written,
    fullPages: (Number(after.fpi) - Number(wal.fpi)) / written,
  };
}

async function main(): Promise<void> {
  await buildOnce();
  const { createPgDb } = await fromDist<{ createPgDb: typeof createPgDbFn }>('store/pg.js');
  const { migrate } = await fromDist<{ migrate: typeof migrateFn }>('store/migrate.js');
  const { TokenStore } = await fromDist<{ TokenStore: typeof TokenStoreClass }>('store/tokens.js');
  const database = await partDatabase(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  const db = createPgDb(database.url);
  try {
    await migrate(db);
    const clients = await populate(db);
    const store = new TokenStore(db, { remember: () => {} } as never);
    const columns = ['1 realm tok/s', 'WAL B/tok', 'FPI/tok', '10000 realms', 'WAL B/tok', 'FPI/tok', 'ratio'];
    console.log(`${'variant'.padEnd(56)}${columns.map((column) => column.padStart(14)).join('')}`);
    for (const variant of VARIANTS) {
      for (const ddl of variant.ddl.split(';').filter((statement) => statement.trim())) await db.query(ddl);
      const rates = { one: [] as Rate[], many: [] as Rate[] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const setup of ['one', 'many'] as const) {
          await db.query('TRUNCATE tokens, audit_events');
          await db.query('CHECKPOINT');
          rates[setup].push(await drive(db, store, clients[setup]));
        }
      }
      const mean = (values: Rate[], field: keyof Rate) => values.reduce((sum, value) => sum + value[field], 0) / values.length;
      const [one, many] = [mean(rates.one, 'tokensPerSecond'), mean(rates.many, 'tokensPerSecond')];
      const rounded = (rate: Rate) => Math.round(rate.tokensPerSecond);
      log(`${variant.name}: ${rates.one.map(rounded).join(', ')} vs ${rates.many.map(rounded).join(', ')} tokens/s`);
      const cells = [
        Math.round(one).toLocaleString('en'),
        Math.round(mean(rates.one, 'walBytes')).toLocaleString('en'),
        mean(rates.one, 'fullPages').toFixed(2),
        Math.round(many).toLocaleString('en'),
        Math.round(mean(rates.many, 'walBytes')).toLocaleString('en'),
        mean(rates.many, 'fullPages').toFixed(2),
        `×${(many / one).toFixed(2)}`,
      ];
      console.log(`${variant.name.padEnd(56)}${cells.map((cell) => cell.padStart(14)).join('')}`);
    }
  } finally {
    await db.close();
    await database.drop();
  }
}

await main();
