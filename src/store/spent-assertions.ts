import type { Db } from './db.js';
import { StatementBatcher } from './statement-batcher.js';

/** An id to spend, and what the statement decided: whether it was fresh. */
interface Spend {
  readonly realm: string;
  readonly issuer: string;
  readonly id: string;
  readonly expiresAt: Date;
  fresh?: boolean;
}

const keyOf = (spend: Spend): string => JSON.stringify([spend.realm, spend.issuer, spend.id]);

/**
 * The ids of accepted assertions, each spent once per issuer: the `jti` of JWT assertions
 * (client assertions, JWT bearer grants, CIBA request objects: RFC 7523 §3 item 7), the `ID`
 * of SAML bearer assertions (RFC 7522 §3 item 7), and the `jti` of DPoP proofs by their key
 * (RFC 9449 §11.1, src/dpop/proofs.ts). A row is kept until its assertion could no longer be
 * accepted; the cleanup deletes it after that.
 *
 * Spends that arrive together share one statement and one commit (src/store/statement-batcher.ts):
 * a DPoP proof comes with every token request of its client, and a statement and a commit
 * each would cost more than the token's own write, which is batched. In a transaction, a
 * spend runs at once on its connection.
 */
export class SpentAssertionStore {
  private readonly spends: Pick<StatementBatcher<Spend>, 'add'>;

  constructor(private readonly db: Db) {
    this.spends = db.inTransaction ? { add: (spend) => this.useMany([spend]) } : new StatementBatcher((spends) => this.useMany(spends));
  }

  /**
   * Spends `id` of `issuer`; false when it was spent already and the assertion that spent it
   * may still be live (a replay). Decided by one statement, so that concurrent requests and
   * instances agree. A row whose time has passed but that the cleanup has not deleted yet counts
   * as gone, so that the answer does not depend on when the cleanup ran.
   */
  async use(realm: string, issuer: string, id: string, expiresAt: Date): Promise<boolean> {
    const spend: Spend = { realm, issuer, id, expiresAt };
    await this.spends.add(spend);
    return spend.fresh!;
  }

  /**
   * One INSERT for every spend: of one id sent twice at once, the second is a replay of the
   * first (one statement cannot insert a row and update it too). The rows go in key order, so
   * that two instances' statements take the locks of the ids they share in the same order and
   * never deadlock.
   */
  private async useMany(spends: readonly Spend[]): Promise<void> {
    const first = new Map<string, Spend>();
    for (const spend of spends) {
      const key = keyOf(spend);
      if (first.has(key)) spend.fresh = false;
      else first.set(key, spend);
    }
    const rows = [...first.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, spend]) => spend);
    const result = await this.db.query<{ realm: string; issuer: string; id: string }>(
      `INSERT INTO spent_assertions (realm, issuer, id, expires_at)
       SELECT realm, issuer, id, expires_at::timestamptz
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS t(realm, issuer, id, expires_at, n) ORDER BY n
       ON CONFLICT (realm, issuer, id) DO UPDATE SET expires_at = EXCLUDED.expires_at
        WHERE spent_assertions.expires_at < now()
       RETURNING realm, issuer, id`,
      [rows.map((spend) => spend.realm), rows.map((spend) => spend.issuer), rows.map((spend) => spend.id), rows.map((spend) => spend.expiresAt.toISOString())],
    );
    const fresh = new Set(result.rows.map((row) => keyOf(row as Spend)));
    for (const spend of rows) spend.fresh = fresh.has(keyOf(spend));
  }
}
