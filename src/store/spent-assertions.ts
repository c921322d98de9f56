import type { Db } from './db.js';
import { StatementBatcher } from './statement-batcher.js';

/** An id of an issuer to spend, remembered until `expiresAt`. */
export interface AssertionSpend {
  readonly realm: string;
  readonly issuer: string;
  readonly id: string;
  readonly expiresAt: Date;
}

/** An id to spend, and what the statement decided: whether it was fresh. */
interface Spend extends AssertionSpend {
  fresh?: boolean;
}

export const spendKey = (spend: Pick<AssertionSpend, 'realm' | 'issuer' | 'id'>): string => JSON.stringify([spend.realm, spend.issuer, spend.id]);

/**
 * The spends to send in one statement, each id once and in key order, so that two instances'
 * statements take the locks of the ids they share in the same order and never deadlock; and
 * the others, which repeat an id sent before them: of one id sent twice at once, the second is
 * a replay of the first (one statement cannot insert a row and update it too).
 */
export function orderedSpends<S extends AssertionSpend>(spends: readonly S[]): { once: S[]; repeats: Set<S> } {
  const first = new Map<string, S>();
  const repeats = new Set<S>();
  for (const spend of spends) {
    const key = spendKey(spend);
    if (first.has(key)) repeats.add(spend);
    else first.set(key, spend);
  }
  const once = [...first.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, spend]) => spend);
  return { once, repeats };
}

/**
 * Spends ids, its arrays from parameter $first on (spendColumns), and answers those that were
 * fresh. A row whose time has passed but that the cleanup has not deleted yet counts as gone,
 * so that the answer does not depend on when the cleanup ran.
 */
export function spendAssertions(first: number): string {
  const [realm, issuer, id, expiresAt] = [0, 1, 2, 3].map((i) => `$${first + i}::text[]`);
  return `
  INSERT INTO spent_assertions (realm, issuer, id, expires_at)
  SELECT realm, issuer, id, expires_at::timestamptz
    FROM unnest(${realm}, ${issuer}, ${id}, ${expiresAt}) WITH ORDINALITY AS t(realm, issuer, id, expires_at, n) ORDER BY n
  ON CONFLICT (realm, issuer, id) DO UPDATE SET expires_at = EXCLUDED.expires_at
   WHERE spent_assertions.expires_at < now()
  RETURNING realm, issuer, id`;
}

/** The arrays of spendAssertions, in its order. */
export function spendColumns(spends: readonly AssertionSpend[]): string[][] {
  return [spends.map((s) => s.realm), spends.map((s) => s.issuer), spends.map((s) => s.id), spends.map((s) => s.expiresAt.toISOString())];
}

const SPEND = spendAssertions(1);

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

  /** One INSERT for every spend (orderedSpends). */
  private async useMany(spends: readonly Spend[]): Promise<void> {
    const { once, repeats } = orderedSpends(spends);
    for (const spend of repeats) spend.fresh = false;
    const result = await this.db.query<{ realm: string; issuer: string; id: string }>(SPEND, spendColumns(once));
    const fresh = new Set(result.rows.map(spendKey));
    for (const spend of once) spend.fresh = fresh.has(spendKey(spend));
  }
}
