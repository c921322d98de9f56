import { type RealmSettings, type RealmSettingsPatch, resolveSettings } from '../records/realm-settings.js';
import type { Journey } from '../records/journey.js';
import type { RealmTexts } from '../records/realm-texts.js';
import { BUILTIN_SCOPES } from '../records/scope.js';
import type { NewSigningKey } from '../records/signing-key.js';
import { type Invalidatable, type Invalidation, type SharedCache, writeThrough } from './cache.js';
import { deleteTokensOfClients } from './clients.js';
import type { Db, Queryable } from './db.js';
import { insertSigningKey } from './signing-keys.js';

export interface Realm {
  readonly name: string;
  /** What an admin set, with the defaults for the rest. */
  readonly settings: RealmSettings;
  /** The journeys an admin stored, by name (CONTRACT.md §8; `default` comes from the settings until one is stored). */
  readonly journeys: Readonly<Record<string, Journey>>;
  /** Its own words for its pages and mails, by language (`…/texts/{locale}`, CONTRACT.md §16). */
  readonly texts: RealmTexts;
  readonly createdAt: Date;
}

export interface RealmRow {
  name: string;
  settings: RealmSettingsPatch;
  journeys: Record<string, Journey>;
  texts: RealmTexts;
  created_at: Date;
}

export const REALM_COLUMNS = 'name, settings, journeys, texts, created_at';

export const toRealm = (row: RealmRow): Realm =>
  Object.freeze({ name: row.name, settings: resolveSettings(row.settings), journeys: row.journeys, texts: row.texts, createdAt: row.created_at });

export class RealmStore {
  constructor(
    private readonly db: Db,
    private readonly cache: SharedCache<Realm>,
    /**
     * The caches of what a realm owns (clients, signing keys, trusted issuers, scopes), keyed
     * "{realm}/…": creating or deleting a realm drops their entries of it.
     */
    private readonly ownedCaches: readonly Invalidatable[],
  ) {}

  /** The invalidations of a realm's creation or deletion. */
  private everythingOf(name: string): Invalidation[] {
    return [[this.cache, name], ...this.ownedCaches.map((cache): Invalidation => [cache, `${name}/`])];
  }

  get(name: string): Promise<Realm | undefined> {
    return this.cache.get(name, async () => {
      const result = await this.db.query<RealmRow>(`SELECT ${REALM_COLUMNS} FROM realms WHERE name = $1`, [name]);
      return result.rows[0] && toRealm(result.rows[0]);
    });
  }

  async list(): Promise<Realm[]> {
    const result = await this.db.query<RealmRow>(`SELECT ${REALM_COLUMNS} FROM realms ORDER BY name`);
    return result.rows.map(toRealm);
  }

  /** Creates the realm with its built-in scopes and signing keys; undefined when the name is taken. */
  create(name: string, settings: RealmSettingsPatch, keys: readonly NewSigningKey[]): Promise<Realm | undefined> {
    return writeThrough(this.db, this.everythingOf(name), (tx) => insertRealm(tx, name, settings, keys));
  }

  /** Merges `patch` into the stored settings: only the keys sent change. */
  updateSettings(name: string, patch: RealmSettingsPatch): Promise<Realm | undefined> {
    return this.writeRow(
      name,
      `UPDATE realms SET settings = settings || $2::jsonb, updated_at = now() WHERE name = $1 RETURNING ${REALM_COLUMNS}`,
      [name, JSON.stringify(patch)],
    );
  }

  /** Stores a journey under its name (replacing one of that name); undefined when there is no such realm. */
  putJourney(name: string, journeyName: string, journey: Journey): Promise<Realm | undefined> {
    return this.writeRow(
      name,
      `UPDATE realms SET journeys = jsonb_set(journeys, ARRAY[$2::text], $3::jsonb), updated_at = now()
        WHERE name = $1 RETURNING ${REALM_COLUMNS}`,
      [name, journeyName, JSON.stringify(journey)],
    );
  }

  /** Removes a stored journey; undefined when the realm has none of that name. */
  deleteJourney(name: string, journeyName: string): Promise<Realm | undefined> {
    return this.writeRow(
      name,
      `UPDATE realms SET journeys = journeys - $2::text, updated_at = now()
        WHERE name = $1 AND journeys ? $2::text RETURNING ${REALM_COLUMNS}`,
      [name, journeyName],
    );
  }

  /** Stores the realm's own words in one language, replacing those it had; none removes them. Undefined when there is no such realm. */
  putTexts(name: string, locale: string, texts: Readonly<Record<string, string>> | undefined): Promise<Realm | undefined> {
    return this.writeRow(
      name,
      texts === undefined
        ? `UPDATE realms SET texts = texts - $2::text, updated_at = now() WHERE name = $1 RETURNING ${REALM_COLUMNS}`
        : `UPDATE realms SET texts = jsonb_set(texts, ARRAY[$2::text], $3::jsonb), updated_at = now() WHERE name = $1 RETURNING ${REALM_COLUMNS}`,
      texts === undefined ? [name, locale] : [name, locale, JSON.stringify(texts)],
    );
  }

  /** The clients of the realm whose `journey` names this one. */
  async clientsWithJourney(name: string, journeyName: string): Promise<string[]> {
    const result = await this.db.query<{ client_id: string }>(
      `SELECT client_id FROM clients WHERE realm = $1 AND record->>'journey' = $2 ORDER BY client_id`,
      [name, journeyName],
    );
    return result.rows.map((row) => row.client_id);
  }

  private writeRow(name: string, text: string, values: unknown[]): Promise<Realm | undefined> {
    return writeThrough(this.db, [[this.cache, name]], async (tx) => {
      const result = await tx.query<RealmRow>(text, values);
      return result.rows[0] && toRealm(result.rows[0]);
    });
  }

  /** Deletes the realm and everything it owns. */
  async delete(name: string): Promise<boolean> {
    return writeThrough(this.db, this.everythingOf(name), async (tx) => {
      await deleteTokensOfClients(tx, name);
      const result = await tx.query('DELETE FROM realms WHERE name = $1', [name]);
      return result.rowCount > 0;
    });
  }
}

export async function insertRealm(
  tx: Queryable,
  name: string,
  settings: RealmSettingsPatch,
  keys: readonly NewSigningKey[],
): Promise<Realm | undefined> {
  const inserted = await tx.query<RealmRow>(
    `INSERT INTO realms (name, settings) VALUES ($1, $2::jsonb)
     ON CONFLICT (name) DO NOTHING RETURNING ${REALM_COLUMNS}`,
    [name, JSON.stringify(settings)],
  );
  const row = inserted.rows[0];
  if (!row) return undefined;
  for (const scope of BUILTIN_SCOPES) {
    await tx.query('INSERT INTO scopes (realm, name, description) VALUES ($1, $2, $3)', [name, scope.name, scope.description]);
  }
  for (const key of keys) await insertSigningKey(tx, name, key);
  return toRealm(row);
}
