import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long one nonce is handed out; it is accepted for one window more. */
const NONCE_WINDOW_SECONDS = 300;

/**
 * Server-provided DPoP nonces (RFC 9449 §8) of the realms with `dpop_nonce`, without shared
 * state. A nonce is the HMAC-SHA256, under a key derived from MASTER_KEY, of the realm's name and
 * the number of the current time window: every instance computes the same one, so a client may
 * take a nonce from one instance and prove with it at another, and nothing is stored, sent
 * between instances or cleaned up. A proof's nonce is accepted when it is the current or the
 * previous window's, so that a nonce handed out just before a window ends still works for one
 * window more: each lives between one and two windows.
 *
 * What this gives up against stored, single-use nonces: a nonce serves any number of proofs of
 * its window. That is what RFC 9449 asks of it: a nonce limits how long before its use a proof
 * can have been made (§11.2, pre-generated proofs), while each proof is used once by its `jti`,
 * spent in the database (src/dpop/proofs.ts).
 */
export class DpopNonces {
  constructor(
    private readonly key: Buffer,
    private readonly windowSeconds = NONCE_WINDOW_SECONDS,
  ) {}

  /** The nonce to hand out now (the `DPoP-Nonce` header). */
  current(realm: string, nowMs = Date.now()): string {
    return this.of(realm, this.window(nowMs));
  }

  /** Whether a proof's nonce is the realm's nonce of this window or the last. */
  accepts(realm: string, nonce: string, nowMs = Date.now()): boolean {
    const window = this.window(nowMs);
    return [window, window - 1].some((w) => sameText(this.of(realm, w), nonce));
  }

  private window(nowMs: number): number {
    return Math.floor(nowMs / 1000 / this.windowSeconds);
  }

  private of(realm: string, window: number): string {
    // 128 bits: as hard to guess as any other secret of the server's, and short on the wire.
    return createHmac('sha256', this.key).update(`${realm}\n${window}`).digest().subarray(0, 16).toString('base64url');
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
