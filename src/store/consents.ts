import type { Db } from './db.js';

/** The scopes a person allowed a client, remembered so that consent is asked only for new ones. */
export class ConsentStore {
  constructor(private readonly db: Db) {}

  /** Undefined when the person never allowed the client anything. */
  async granted(realm: string, userId: string, clientId: string): Promise<string[] | undefined> {
    const result = await this.db.query<{ scope: string[] }>(
      'SELECT scope FROM consents WHERE realm = $1 AND user_id = $2 AND client_id = $3',
      [realm, userId, clientId],
    );
    return result.rows[0]?.scope;
  }

  /** Adds `scope` to what the person allowed the client before. */
  async grant(realm: string, userId: string, clientId: string, scope: readonly string[]): Promise<void> {
    await this.db.query(
      `INSERT INTO consents (realm, user_id, client_id, scope) VALUES ($1, $2, $3, $4::text[])
       ON CONFLICT (realm, user_id, client_id) DO UPDATE
         SET scope = ARRAY(SELECT DISTINCT unnest(consents.scope || excluded.scope) ORDER BY 1), granted_at = now()`,
      [realm, userId, clientId, scope],
    );
  }
}
