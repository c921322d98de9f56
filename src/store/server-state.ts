import type { Db } from './db.js';

/** Server-wide values, such as the hash of a generated admin token. */
export class ServerStateStore {
  constructor(private readonly db: Db) {}

  async get(name: string): Promise<string | undefined> {
    const result = await this.db.query<{ value: string }>('SELECT value FROM server_state WHERE name = $1', [name]);
    return result.rows[0]?.value;
  }

  /** Sets the value unless one is already set; true when this call set it. */
  async setIfAbsent(name: string, value: string): Promise<boolean> {
    const result = await this.db.query('INSERT INTO server_state (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING', [name, value]);
    return result.rowCount > 0;
  }
}
