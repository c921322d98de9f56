import { OAuthError } from '../errors.js';
import type { RealmSettings } from '../records/realm-settings.js';

/**
 * The realm's `grant_max_lifetime` (CONTRACT.md §5): no token of a grant outlives the grant's
 * start by more. A grant's tokens, those of its refreshes included, live at most until then.
 */
export class GrantLifetime {
  /** Epoch milliseconds; undefined when the realm sets no cap. */
  private readonly deadline: number | undefined;

  constructor(settings: Pick<RealmSettings, 'grant_max_lifetime'>, startedAt: Date) {
    const max = settings.grant_max_lifetime;
    this.deadline = max === null ? undefined : startedAt.getTime() + max * 1000;
  }

  /**
   * The whole seconds a token issued `at` may live: `lifetime`, or less near the grant's end.
   * A grant with less than a second left issues nothing: its refresh is `invalid_grant`.
   */
  lifetime(lifetime: number, at: Date): number {
    const capped = this.capped(lifetime, at.getTime());
    if (capped < 1) throw new OAuthError('invalid_grant', 'the grant has reached its maximum lifetime');
    return capped;
  }

  /**
   * As `lifetime`, for what is signed after the grant's tokens are written (a JWT access
   * token, an ID token, whose `exp` counts from the moment of signing); never more than
   * `planned`, the lifetime given to the stored tokens.
   */
  signedLifetime(planned: number, now = Date.now()): number {
    return Math.max(0, this.capped(planned, now));
  }

  private capped(lifetime: number, at: number): number {
    if (this.deadline === undefined) return lifetime;
    return Math.min(lifetime, Math.floor((this.deadline - at) / 1000));
  }
}
