/** A connection, or the store's pool (`Db` of src/store/db.ts): what the functions here query through. */
export interface Sql {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * A table's indexes as its migrations made them: the constraints that own one (primary key,
 * unique) by their definition, the others by `CREATE INDEX` text, as PostgreSQL prints them.
 */
interface IndexDefinitions {
  readonly constraints: ReadonlyArray<{ name: string; definition: string }>;
  readonly indexes: ReadonlyArray<{ name: string; definition: string }>;
}

type Definition = { name: string; definition: string };

async function readIndexes(client: Sql, table: string): Promise<IndexDefinitions> {
  const constraints = await client.query(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition
       FROM pg_constraint WHERE conrelid = $1::regclass AND conindid <> 0 ORDER BY conname`,
    [table],
  );
  const indexes = await client.query(
    `SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS definition
       FROM pg_index
      WHERE indrelid = $1::regclass
        AND indexrelid NOT IN (SELECT conindid FROM pg_constraint WHERE conrelid = $1::regclass)
      ORDER BY 1`,
    [table],
  );
  return { constraints: constraints.rows as Definition[], indexes: indexes.rows as Definition[] };
}

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * Runs `load` on `table` without its indexes, then builds them again from their definitions:
 * a bulk load that maintains a b-tree on a random key (a token's hash, a grant id) writes a
 * random page of it per row, and after each checkpoint a full-page image of it to the WAL;
 * an index built after the load is sorted once and written in order. The indexes built are
 * checked to be exactly those there were.
 */
export async function withIndexesBuiltAfter<T>(client: Sql, table: string, load: () => Promise<T>): Promise<{ result: T; indexSeconds: number }> {
  const before = await readIndexes(client, table);
  for (const { name } of before.constraints) await client.query(`ALTER TABLE ${quoted(table)} DROP CONSTRAINT ${quoted(name)}`);
  for (const { name } of before.indexes) await client.query(`DROP INDEX ${name}`);
  const result = await load();
  const started = performance.now();
  // The session's own memory for sorting (the server's default is 64 MB): each index sorted in one pass.
  await client.query(`SET maintenance_work_mem = '1GB'`);
  for (const { name, definition } of before.constraints) await client.query(`ALTER TABLE ${quoted(table)} ADD CONSTRAINT ${quoted(name)} ${definition}`);
  for (const { definition } of before.indexes) await client.query(definition);
  await client.query('RESET maintenance_work_mem');
  const after = await readIndexes(client, table);
  if (JSON.stringify(after) !== JSON.stringify(before)) {
    throw new Error(`the indexes of ${table} built after the load differ from the migrated ones: ${JSON.stringify({ before, after })}`);
  }
  return { result, indexSeconds: (performance.now() - started) / 1000 };
}
