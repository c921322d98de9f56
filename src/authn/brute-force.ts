import { setTimeout as sleep } from 'node:timers/promises';
import { addressKey } from '../address-key.js';
import type { RequestRealm } from '../records/realm.js';
import { type AttemptCounters, type AttemptLimit, type Reservation, personKey } from '../store/attempt-counters.js';

/** Checks counted in a window of this length, per account and per address. */
const WINDOW_SECONDS = 15 * 60;
/** Then the account is locked until the window ends: 10 failed or running checks. */
const ACCOUNT_LOCK_AFTER = 10;
/** An address trying many accounts is locked after more failures than one person makes. */
const ADDRESS_LOCK_AFTER = 50;
/** From this many failures on, each further failure is answered more slowly. */
const DELAY_AFTER = 3;
const MAX_DELAY_MS = 4_000;

/** A check reserved within the limits, or the seconds until the account or the address opens again. */
export type CheckReservation = { readonly reserved: readonly Reservation[] } | { readonly lockedFor: number };

/**
 * Brute-force protection of sign-in (OWASP Authentication Cheat Sheet, "Account lockout";
 * CONTRACT.md §7): at most 10 checks of a password or a one-time code per account, and 50 per
 * address, in 15 minutes. Each check is counted in the database before it runs (`reserve`), so
 * that concurrent attempts on any number of instances cannot exceed the limit; past it the
 * account, or the address, is locked until its window ends, even for the right password. A
 * check that fails keeps its place and is answered after a delay that grows with the failures
 * (doubling up to 4 s); one that passes, or that checked nothing, gives its place back, so
 * that nobody is locked by their own sign-ins.
 *
 * Every step of one account (password, one-time code, passkey) spends the same budget: a
 * second factor is the same account, and a budget of its own would let an attacker who knows
 * the password guess codes beside the password guesses.
 *
 * An account is counted per person, whatever spelling of their username reaches them: the
 * reserving statement looks the typed name up as the users lookup does (SQL `lower()`, which
 * folds `İ` to `i` where JavaScript does not) and counts under the person's id. A name that
 * reaches nobody is counted by that same `lower()` of it, so that locking an unknown name
 * behaves as locking a known one and says nothing about which usernames exist.
 */
export class BruteForceGuard {
  constructor(
    private readonly counters: AttemptCounters,
    private readonly delay: (ms: number) => Promise<unknown> = sleep,
  ) {}

  /** Takes a place for one check of the account (undefined: not known yet) from the address; nothing is checked without one. */
  async reserve(realm: RequestRealm, account: string | undefined, address: string): Promise<CheckReservation> {
    const result = await this.counters.reserve(limits(realm, account, address));
    return 'wait' in result ? { lockedFor: result.wait } : result;
  }

  /** The check failed: its place stays counted, and the answer waits the delay the failures have earned. */
  async failed(check: { readonly reserved: readonly Reservation[] }): Promise<void> {
    const failures = Math.max(...check.reserved.map((reservation) => reservation.count), 0);
    if (failures >= DELAY_AFTER) await this.delay(Math.min(250 * 2 ** (failures - DELAY_AFTER), MAX_DELAY_MS));
  }

  /** The check passed, or nothing was checked: its place is given back. */
  passed(check: { readonly reserved: readonly Reservation[] }): Promise<void> {
    return this.counters.release(check.reserved);
  }

  /** Whether the person failed to sign in within the current window (the risk step asks). */
  async recentFailures(realm: RequestRealm, userId: string): Promise<boolean> {
    return (await this.counters.failures(personKey(accountKeyPrefix(realm), userId))) > 0;
  }
}

const accountKeyPrefix = (realm: RequestRealm): string => `sign-in:${realm.name}:account:`;

const accountLimit = (realm: RequestRealm, account: string): AttemptLimit => ({
  key: accountKeyPrefix(realm),
  person: { realm: realm.name, username: account },
  max: ACCOUNT_LOCK_AFTER,
  windowSeconds: WINDOW_SECONDS,
});

function limits(realm: RequestRealm, account: string | undefined, address: string): AttemptLimit[] {
  const byAddress = { key: `sign-in:${realm.name}:address:${addressKey(address)}`, max: ADDRESS_LOCK_AFTER, windowSeconds: WINDOW_SECONDS };
  return account === undefined ? [byAddress] : [accountLimit(realm, account), byAddress];
}
