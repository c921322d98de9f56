import { setTimeout as sleep } from 'node:timers/promises';
import { sha256 } from '../crypto/hash.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { AttemptCounters, AttemptLimit } from '../store/attempt-counters.js';

/** Failed sign-ins counted in a window of this length, per account and per address. */
const WINDOW_SECONDS = 15 * 60;
/** Then the account is locked until the window ends: 10 failures. */
const ACCOUNT_LOCK_AFTER = 10;
/** An address trying many accounts is locked after more failures than one person makes. */
const ADDRESS_LOCK_AFTER = 50;
/** From this many failures on, each further failure is answered more slowly. */
const DELAY_AFTER = 3;
const MAX_DELAY_MS = 4_000;

/**
 * Brute-force protection of sign-in (OWASP Authentication Cheat Sheet, "Account lockout"):
 * failures of every step (password, one-time code) are counted per account and per address
 * in the database, so that every instance sees them. Past a few failures each answer is
 * delayed more (doubling up to 4 s); past the limit the account, or the address, is locked
 * until its window ends, with a message that says so.
 *
 * An account is counted by what was typed (a username, which need not exist) before the
 * person is known, so that locking says nothing about which usernames exist.
 */
export class BruteForceGuard {
  constructor(
    private readonly counters: AttemptCounters,
    private readonly delay: (ms: number) => Promise<unknown> = sleep,
  ) {}

  /** Seconds until attempts are accepted again, when the account or the address is locked. */
  lockedFor(realm: RequestRealm, account: string | undefined, address: string): Promise<number | undefined> {
    return this.counters.blockedFor(limits(realm, account, address));
  }

  /** Counts a failure, then waits the delay the account's failures have earned. */
  async failed(realm: RequestRealm, account: string | undefined, address: string): Promise<void> {
    const counts = await this.counters.recordFailure(limits(realm, account, address));
    const failures = Math.max(...counts, 0);
    if (failures >= DELAY_AFTER) await this.delay(Math.min(250 * 2 ** (failures - DELAY_AFTER), MAX_DELAY_MS));
  }

  /** Whether the account failed to sign in within the current window (the risk step asks). */
  async recentFailures(realm: RequestRealm, account: string): Promise<boolean> {
    return (await this.counters.failures(accountLimit(realm, account).key)) > 0;
  }
}

const accountLimit = (realm: RequestRealm, account: string): AttemptLimit => ({
  // Hashed: the name is as typed, of any length (a counter key must fit the index).
  key: `sign-in:${realm.name}:account:${sha256(account.toLowerCase()).toString('base64url')}`,
  max: ACCOUNT_LOCK_AFTER,
  windowSeconds: WINDOW_SECONDS,
});

function limits(realm: RequestRealm, account: string | undefined, address: string): AttemptLimit[] {
  const byAddress = { key: `sign-in:${realm.name}:address:${address}`, max: ADDRESS_LOCK_AFTER, windowSeconds: WINDOW_SECONDS };
  return account === undefined ? [byAddress] : [accountLimit(realm, account), byAddress];
}
