import { type NewAuditEvent, auditEventColumns } from './audit-events.js';
import { type CodeExchange, type CodeTokens, type PresentedCode, exchangeCode } from './code-exchange.js';
import type { Db } from './db.js';
import type { DenialMemory, DenialRow } from './revoked-jwts.js';
import { StatementBatcher, type StatementBatcherOptions } from './statement-batcher.js';
import { type NewToken, type StoredToken, TOKEN_COLUMNS, type TokenRow, CLIENT_EXISTS, toToken } from './token-records.js';
import { type AssertionSpend, orderedSpends, spendColumns, spendKey } from './spent-assertions.js';
import { FIND_MANY, INSERT_MANY, INSERT_MANY_SPENDING, REVOKE_GRANT, ROTATE, insertedColumns } from './token-statements.js';
import { type User, type UserRow, toUser } from './users.js';

export { type Actor, type NewToken, type SignIn, type StoredToken, type TokenKind, type TokenRecord, isLive } from './token-records.js';

/**
 * The tokens of one grant, and the audit event of their issuance (written with them), perhaps
 * on condition that an id is fresh (`spend`); once its batch has run, whether they were, and
 * whether the id had been spent before.
 */
interface GrantWrite {
  tokens: readonly NewToken[];
  event: NewAuditEvent | undefined;
  spend?: AssertionSpend | undefined;
  written: boolean;
  replayed?: boolean;
}

/** What became of a write that spends an id: written; refused, as insertAll's false; or not written since the id was spent before. */
export type SpendingWrite = 'written' | 'refused' | 'replayed';

/** A refresh token presented for rotation, its successors, and, once its batch has run, the person behind it if it was used. */
interface Rotation {
  presented: string;
  realm: string;
  clientId: string;
  successors: readonly NewToken[];
  event: NewAuditEvent | undefined;
  user: User | undefined;
}

/** A lookup by the token's hash (hex), and what it found once its batch has run. */
interface TokenLookup {
  hash: string;
  found: StoredToken | undefined;
}

/** Where rows go: with those of the same moment in one statement; in a transaction, at once on its connection. */
type Batcher<Row> = Pick<StatementBatcher<Row>, 'add'>;

function batcher<Row>(db: Db, run: (rows: readonly Row[]) => Promise<void>, options?: Partial<StatementBatcherOptions>): Batcher<Row> {
  return db.inTransaction ? { add: (row) => run([row]) } : new StatementBatcher(run, options);
}

/** Opaque tokens, stored by the SHA-256 of their value (never the value). */
export class TokenStore {
  /** Tokens issued at the same time share a statement and a commit (src/store/statement-batcher.ts). */
  private readonly writer: Batcher<GrantWrite>;

  /**
   * Lookups by hash (introspection, revocation, userinfo, refresh) that arrive together share
   * a statement too: under load, one round trip answers many requests.
   */
  private readonly lookups: Batcher<TokenLookup>;

  /** Refresh token rotations that arrive together share a statement and a commit as well. */
  private readonly rotations: Batcher<Rotation>;

  constructor(
    private readonly db: Db,
    private readonly revokedJwts: DenialMemory,
  ) {
    this.writer = batcher(db, (grants) => this.insertMany(grants));
    // Two lookups at a time: over a table larger than PostgreSQL's shared buffers, a lookup
    // waits on pages read through the kernel, and a second statement overlaps that wait
    // (bench:scale's tokens part: bench/scale/README.md).
    this.lookups = batcher(db, (lookups) => this.findMany(lookups), { maxInFlight: 2 });
    // One batch at a time: the hash order of rotateMany keeps two statements from deadlocking
    // only while the plan locks the rows in that order.
    this.rotations = batcher(db, (rotations) => this.rotateMany(rotations), { maxInFlight: 1 });
  }

  /** Resolves once the token is committed. */
  insert(token: NewToken): Promise<void> {
    return this.writer.add({ tokens: [token], event: undefined, written: false });
  }

  /**
   * Inserts the tokens of one grant, and the event of their issuance, in one statement:
   * batched with other grants', or in the transaction of a `Store.transaction` (which commits
   * them). False when nothing was written: the person behind the tokens no longer exists, is
   * disabled, or changed the password they were granted with.
   */
  async insertAll(tokens: readonly NewToken[], event: NewAuditEvent | undefined): Promise<boolean> {
    if (tokens.length === 0 && !event) return true;
    const grant: GrantWrite = { tokens, event, written: false };
    await this.writer.add(grant);
    return grant.written;
  }

  /**
   * insertAll, on condition that `spend` is fresh, and spending it (the `jti` of the request's
   * DPoP proof, RFC 9449 §11.1): in the statement and commit of the tokens, so that a proof
   * costs no statement of its own, is spent once across instances, and is spent only with the
   * tokens it binds.
   */
  async insertAllSpending(tokens: readonly NewToken[], event: NewAuditEvent | undefined, spend: AssertionSpend): Promise<SpendingWrite> {
    const grant: GrantWrite = { tokens, event, spend, written: false };
    await this.writer.add(grant);
    return grant.replayed ? 'replayed' : grant.written ? 'written' : 'refused';
  }

  private async insertMany(grants: readonly GrantWrite[]): Promise<void> {
    if (grants.some((grant) => grant.spend)) return this.insertManySpending(grants);
    const events = grants.flatMap((grant) => (grant.event ? [{ event: grant.event, of: grant.tokens[0]?.grantId ?? null }] : []));
    const result = await this.db.query<{ grant_id: string }>(INSERT_MANY, [
      ...insertedColumns(grants.flatMap((grant) => grant.tokens)),
      ...auditEventColumns(events.map(({ event }) => event)),
      events.map(({ of }) => of),
    ]);
    const written = new Set(result.rows.map((row) => row.grant_id));
    for (const grant of grants) grant.written = grant.tokens.length === 0 || written.has(grant.tokens[0]!.grantId);
  }

  /** insertMany for a batch where grants spend ids (INSERT_MANY_SPENDING); of one id spent twice in it, the second is a replay. */
  private async insertManySpending(grants: readonly GrantWrite[]): Promise<void> {
    const { once, repeats } = orderedSpends(grants.flatMap((grant) => (grant.spend ? [grant.spend] : [])));
    const sent = grants.filter((grant) => !grant.spend || !repeats.has(grant.spend));
    const tokens = sent.flatMap((grant) => grant.tokens.map((token) => ({ token, spend: grant.spend })));
    const events = sent.flatMap((grant) => (grant.event ? [{ event: grant.event, of: grant.tokens[0]?.grantId ?? null, spend: grant.spend }] : []));
    const spendOf = (rows: ReadonlyArray<{ spend: AssertionSpend | undefined }>) => [
      rows.map((row) => row.spend?.realm ?? null),
      rows.map((row) => row.spend?.issuer ?? null),
      rows.map((row) => row.spend?.id ?? null),
    ];
    const result = await this.db.query<{ grant_id: string | null; realm: string; issuer: string; id: string }>(INSERT_MANY_SPENDING, [
      ...spendColumns(once),
      ...insertedColumns(tokens.map(({ token }) => token)),
      ...spendOf(tokens),
      ...auditEventColumns(events.map(({ event }) => event)),
      events.map(({ of }) => of),
      ...spendOf(events),
    ]);
    const written = new Set(result.rows.flatMap((row) => (row.grant_id === null ? [] : [row.grant_id])));
    const fresh = new Set(result.rows.flatMap((row) => (row.grant_id === null ? [spendKey(row)] : [])));
    for (const grant of grants) {
      grant.replayed = grant.spend !== undefined && (repeats.has(grant.spend) || !fresh.has(spendKey(grant.spend)));
      grant.written = !grant.replayed && (grant.tokens.length === 0 || written.has(grant.tokens[0]!.grantId));
    }
  }

  /**
   * Uses a code once, for the client it was issued to, and writes its tokens and their event in
   * the same statement when the presented redirect URI and verifier match it (src/store/code-exchange.ts).
   */
  exchangeCode(presented: PresentedCode, planned: CodeTokens): Promise<CodeExchange> {
    return exchangeCode(this.db, presented, planned);
  }

  /**
   * Uses a refresh token of this client once, and writes its successors (rotation, RFC 9700
   * §4.14.2) and the event of their issuance: committed together, in a statement shared with
   * concurrent rotations. Answers the person behind the token when it was used; undefined when
   * it was not live (used, revoked, expired, or its person gone), for the caller to tell a
   * replay from the rest.
   */
  async rotateRefreshToken(
    presented: Buffer,
    realm: string,
    clientId: string,
    successors: readonly NewToken[],
    event: NewAuditEvent | undefined,
  ): Promise<User | undefined> {
    const rotation: Rotation = { presented: presented.toString('hex'), realm, clientId, successors, event, user: undefined };
    await this.rotations.add(rotation);
    return rotation.user;
  }

  private async rotateMany(batch: readonly Rotation[]): Promise<void> {
    // In the order of their hashes: the plan (a nested loop over the presented tokens, each
    // found by its primary key) locks their rows in that order, so that two instances'
    // statements presenting the same tokens wait for each other rather than deadlock.
    const rotations = [...batch].sort((a, b) => (a.presented < b.presented ? -1 : a.presented > b.presented ? 1 : 0));
    const successors = rotations.flatMap((rotation, i) => rotation.successors.map((token) => ({ token, of: String(i + 1) })));
    const events = rotations.flatMap((rotation, i) => (rotation.event ? [{ event: rotation.event, of: String(i + 1) }] : []));
    // One call, outside any transaction: the function locks the people behind the tokens, then
    // rotates them, in statements of their own (ROTATION_FUNCTION_BODY), committed together.
    const result = await this.db.query<UserRow & { n: number }>(ROTATE, [
      rotations.map((rotation) => rotation.presented),
      rotations.map((rotation) => rotation.realm),
      rotations.map((rotation) => rotation.clientId),
      ...insertedColumns(successors.map((successor) => successor.token)),
      successors.map((successor) => successor.of),
      ...auditEventColumns(events.map(({ event }) => event)),
      events.map(({ of }) => of),
    ]);
    for (const row of result.rows) rotations[row.n - 1]!.user = toUser(row);
  }

  /** The token of this hash, looked up with those of concurrent callers in one statement. */
  async find(hash: Buffer): Promise<StoredToken | undefined> {
    const lookup: TokenLookup = { hash: hash.toString('hex'), found: undefined };
    await this.lookups.add(lookup);
    return lookup.found;
  }

  private async findMany(lookups: readonly TokenLookup[]): Promise<void> {
    const result = await this.db.query<TokenRow & { hash: string }>(FIND_MANY, [lookups.map((lookup) => lookup.hash)]);
    const byHash = new Map(result.rows.map((row) => [row.hash, row]));
    for (const lookup of lookups) {
      const row = byHash.get(lookup.hash);
      lookup.found = row && toToken(row);
    }
  }

  /**
   * A live refresh token of this client, locked until the transaction ends (this repository of
   * a `Store.transaction`'s), so that a revocation of its grant waits for (and so sees) the
   * tokens issued from it. Found by its hash alone, as in ROTATE_MANY.
   */
  async holdRefreshToken(hash: Buffer, realm: string, clientId: string): Promise<StoredToken | undefined> {
    const held = await this.db.query<TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM tokens t
        WHERE t.token_hash = $1 AND (t.realm, t.client_id) IS NOT DISTINCT FROM ($2, $3) AND t.kind = 'refresh_token'
          AND t.used_at IS NULL AND t.revoked_at IS NULL AND t.expires_at > now() AND ${CLIENT_EXISTS}
          FOR SHARE OF t`,
      [hash, realm, clientId],
    );
    return held.rows[0] && toToken(held.rows[0]);
  }

  async revoke(hash: Buffer): Promise<void> {
    await this.db.query('UPDATE tokens SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL', [hash]);
  }

  /**
   * Revokes every token of the grant: the stored ones, and, in the same statement, its JWT
   * access tokens (which are not stored) through a denial of the grant on every instance.
   * The grant's realm is that of its stored tokens; pass it when it may have none (a code
   * exchanged for a lone JWT access token).
   *
   * The grant's person, then its rows, are locked first: a refresh being written holds the
   * person (insertTokens) and its refresh token's row, so the revocation waits for it, and its
   * statement, which starts afterwards, sees the new tokens and revokes them too; a refresh
   * that comes later waits for the revocation, and then finds its token revoked.
   */
  async revokeGrant(grantId: string, realm?: string): Promise<void> {
    const result = await this.db.transaction(async (tx) => {
      await tx.query(
        `SELECT 1 FROM users u WHERE (u.realm, u.id) IN (SELECT realm, user_id FROM tokens WHERE grant_id = $1::text::uuid) FOR UPDATE OF u`,
        [grantId],
      );
      await tx.query('SELECT 1 FROM tokens WHERE grant_id = $1::text::uuid FOR UPDATE', [grantId]);
      return tx.query<DenialRow>(REVOKE_GRANT, [grantId, realm ?? null]);
    });
    this.revokedJwts.remember(result.rows);
  }
}

