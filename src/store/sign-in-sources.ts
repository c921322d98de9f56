import type { Db } from './db.js';
import { StatementParams } from './statement.js';

/**
 * Where a sign-in comes from: a device (the SHA-256 of its long-lived cookie, hex) and an
 * address, which the risk step gives as its network (src/address-key.ts).
 */
export interface SignInSource {
  readonly device: string | undefined;
  readonly address: string;
}

/** The devices and addresses each person signed in from, for the risk step. */
export class SignInSourceStore {
  constructor(private readonly db: Db) {}

  /** Whether the person signed in from this device (when there is one) and from this address before. */
  async known(realm: string, userId: string, source: SignInSource): Promise<{ device: boolean; address: boolean }> {
    const result = await this.db.query<{ kind: 'device' | 'address' }>(
      `SELECT kind FROM known_sign_in_sources
        WHERE realm = $1 AND user_id = $2::uuid AND ((kind = 'device' AND value = $3) OR (kind = 'address' AND value = $4))`,
      [realm, userId, source.device ?? null, source.address],
    );
    const kinds = new Set(result.rows.map((row) => row.kind));
    return { device: kinds.has('device'), address: kinds.has('address') };
  }

  async remember(realm: string, userId: string, source: SignInSource): Promise<void> {
    const params = new StatementParams();
    await this.db.query(rememberSource(params, realm, userId, source), params.values);
  }
}

/** The statement that makes a sign-in's device and address known (again) for the person; with `where`, only when that condition holds. */
export function rememberSource(params: StatementParams, realm: string, userId: string, source: SignInSource, where?: string): string {
  return `INSERT INTO known_sign_in_sources (realm, user_id, kind, value)
          SELECT ${params.add(realm)}, ${params.add(userId)}::uuid, kind, value
            FROM (VALUES ('device', ${params.add(source.device ?? null)}::text), ('address', ${params.add(source.address)}::text)) AS s(kind, value)
           WHERE value IS NOT NULL${where ? ` AND ${where}` : ''}
          ON CONFLICT (realm, user_id, kind, value) DO UPDATE SET last_seen_at = now()`;
}
