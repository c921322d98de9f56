import { randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { ROOT_REALM } from '../records/realm-names.js';
import type { OneTimeCodeStore } from '../store/one-time-codes.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';
import { sha256 } from '../secrets.js';

/**
 * One-time codes: TOTP (RFC 6238) with the parameters every authenticator app understands
 * (SHA-1, 6 digits, 30 s: the defaults of the Key URI Format,
 * https://github.com/google/google-authenticator/wiki/Key-Uri-Format), and single-use
 * recovery codes for when the app is lost.
 */
const ALGORITHM = 'SHA1';
const DIGITS = 6;
const PERIOD_SECONDS = 30;
/** RFC 6238 §5.2: one time step either side, for clock drift and the time it takes to type. */
const WINDOW_STEPS = 1;
/** RFC 4226 §4 R6 asks for 128 bits at least and recommends 160: the length of an HMAC-SHA-1 key. */
const SECRET_BYTES = 20;

/** What the `amr` of a sign-in says of a one-time code (RFC 8176 `otp`). */
export const OTP_AMR = ['otp'] as const;

/**
 * A recovery code counts as `otp` too: it is a one-time password from a list the person
 * holds (printed, or in a password manager), so the sign-in still spans two factors.
 */
export const RECOVERY_CODE_AMR = OTP_AMR;

export type OneTimeCodeKind = 'otp' | 'recovery';

/** What the verifier needs of the store: the whole Store fits. */
export interface OneTimeCodeStores {
  readonly oneTimeCodes: OneTimeCodeStore;
}

// ---------------------------------------------------------------------------------------------
// TOTP secrets

/** The encryption context binds a sealed secret to its realm and person, as signing keys are bound to theirs. */
const contextOf = (realm: string, userId: string): string => `totp-secret:${realm}:${userId}`;

export function newTotpSecret(): Buffer {
  return Buffer.from(new Secret({ size: SECRET_BYTES }).bytes);
}

export function sealTotpSecret(encryption: KeyEncryption, realm: string, userId: string, secret: Buffer): Buffer {
  return encryption.encrypt(secret, contextOf(realm, userId));
}

/** Throws when MASTER_KEY, the realm or the person differ from those that sealed it. */
export function openTotpSecret(encryption: KeyEncryption, realm: string, userId: string, sealed: Buffer): Buffer {
  return encryption.decrypt(sealed, contextOf(realm, userId));
}

export const base32Of = (secret: Buffer): string => new Secret({ buffer: bufferOf(secret) }).base32;

/**
 * The name authenticator apps show above the code: the server's host name, and the realm
 * unless it is root. The Key URI Format forbids a colon in it, so the port is left out.
 */
export function issuerLabel(realm: { name: string; issuer: string }): string {
  const host = new URL(realm.issuer).hostname;
  return realm.name === ROOT_REALM ? host : `${host} ${realm.name}`;
}

/** `otpauth://totp/{issuer}:{username}?secret=…&issuer=…&algorithm=SHA1&digits=6&period=30`, for the QR code. */
export function otpauthUri(issuer: string, username: string, secret: Buffer): string {
  return totpOf(secret, { issuer, label: username }).toString();
}

/** The RFC 6238 time step whose code `code` is, within one step of `now`; undefined for anything else. */
export function timeStepOf(secret: Buffer, code: string, now = Date.now()): number | undefined {
  if (!/^\d+$/.test(code) || code.length !== DIGITS) return undefined;
  const totp = totpOf(secret);
  const delta = totp.validate({ token: code, timestamp: now, window: WINDOW_STEPS });
  return delta === null ? undefined : totp.counter({ timestamp: now }) + delta;
}

/** The code of a time step: for tests and tools, never shown by the server. */
export function totpCode(secret: Buffer, now = Date.now()): string {
  return totpOf(secret).generate({ timestamp: now });
}

function totpOf(secret: Buffer, naming: { issuer?: string; label?: string } = {}): TOTP {
  return new TOTP({ ...naming, secret: new Secret({ buffer: bufferOf(secret) }), algorithm: ALGORITHM, digits: DIGITS, period: PERIOD_SECONDS });
}

/** A copy that owns its memory: otpauth keeps an ArrayBuffer, and a Buffer may be a view of a shared pool. */
function bufferOf(secret: Buffer): ArrayBuffer {
  return new Uint8Array(secret).buffer;
}

// ---------------------------------------------------------------------------------------------
// Enrolment

/** A pending enrolment shown again within this long keeps its secret (the person may still be scanning it). */
const PENDING_REUSE_SECONDS = 30 * 60;

/** An admin's enrolment: a new secret, confirmed at once, replacing any other. */
export async function enrolTotp(stores: OneTimeCodeStores, encryption: KeyEncryption, realm: string, userId: string): Promise<Buffer> {
  const secret = newTotpSecret();
  await stores.oneTimeCodes.replaceTotp(realm, userId, sealTotpSecret(encryption, realm, userId, secret), true);
  return secret;
}

/**
 * The secret of a person's enrolment waiting for its first code. `fresh` starts a new one
 * (the account page's "set up"); otherwise a recent pending one is shown again (the sign-in
 * page reloaded). Undefined when the person has a confirmed secret: it is never replaced here.
 */
export async function pendingTotpSecret(
  stores: OneTimeCodeStores,
  encryption: KeyEncryption,
  realm: string,
  userId: string,
  options: { fresh: boolean },
): Promise<Buffer | undefined> {
  const candidate = sealTotpSecret(encryption, realm, userId, newTotpSecret());
  const stored = await stores.oneTimeCodes.pendingTotp(realm, userId, candidate, options.fresh ? 0 : PENDING_REUSE_SECONDS);
  return stored.confirmedAt ? undefined : openTotpSecret(encryption, realm, userId, stored.secretEncrypted);
}

/** The secret of a pending enrolment, as stored (to show it again after a wrong code); undefined when there is none. */
export async function storedPendingSecret(stores: OneTimeCodeStores, encryption: KeyEncryption, realm: string, userId: string): Promise<Buffer | undefined> {
  const stored = await stores.oneTimeCodes.totp(realm, userId);
  return stored && !stored.confirmedAt ? openTotpSecret(encryption, realm, userId, stored.secretEncrypted) : undefined;
}

export async function hasConfirmedTotp(stores: OneTimeCodeStores, realm: string, userId: string): Promise<boolean> {
  return (await stores.oneTimeCodes.totp(realm, userId))?.confirmedAt !== undefined;
}

// ---------------------------------------------------------------------------------------------
// Recovery codes

/** Digits and lower-case letters without 0/o, 1/l/i, which read alike: 31 symbols. */
const RECOVERY_ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';
const RECOVERY_CODE_LENGTH = 10;
export const RECOVERY_CODE_COUNT = 10;

/** Fresh recovery codes as shown once: `xxxxx-xxxxx`, about 49.5 bits each. */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    const symbols = Array.from({ length: RECOVERY_CODE_LENGTH }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]!);
    return `${symbols.slice(0, 5).join('')}-${symbols.slice(5).join('')}`;
  });
}

/** The stored form of a recovery code as typed (any case, with or without its dash and spaces); undefined when it cannot be one. */
export function recoveryCodeHash(typed: string): Buffer | undefined {
  const code = typed.toLowerCase().replace(/[\s-]/g, '');
  if (code.length !== RECOVERY_CODE_LENGTH || [...code].some((symbol) => !RECOVERY_ALPHABET.includes(symbol))) return undefined;
  return sha256(code);
}

export async function replaceRecoveryCodes(stores: OneTimeCodeStores, realm: string, userId: string): Promise<string[]> {
  const codes = newRecoveryCodes();
  await stores.oneTimeCodes.replaceRecoveryCodes(realm, userId, codes.map((code) => recoveryCodeHash(code)!));
  return codes;
}

// ---------------------------------------------------------------------------------------------
// Verification

/**
 * Checks a code a person typed: a current TOTP code (one step either side) of their confirmed
 * secret, accepted once; or one of their unused recovery codes, spent by this use. With
 * `pending` (or when it resolves true, asked only then), a TOTP code of a secret waiting for
 * its first code confirms it. The database
 * decides between concurrent uses of one code: exactly one of them passes.
 *
 * For every caller that takes a second factor: the `otp` sign-in step, the password grant.
 */
export async function verifyOneTimeCode(
  stores: OneTimeCodeStores,
  encryption: KeyEncryption,
  realm: string,
  userId: string,
  typed: string,
  options: { pending?: boolean | (() => Promise<boolean>); now?: number } = {},
): Promise<OneTimeCodeKind | undefined> {
  const code = typed.replace(/\s/g, '');
  if (/^\d+$/.test(code) && code.length === DIGITS) {
    const stored = await stores.oneTimeCodes.totp(realm, userId);
    // Asked only of a person without a confirmed secret, so that a sign-in with one does no more work.
    const pending = stored?.confirmedAt === undefined && (typeof options.pending === 'function' ? await options.pending() : options.pending === true);
    if (!stored || (!stored.confirmedAt && !pending)) return undefined;
    const step = timeStepOf(openTotpSecret(encryption, realm, userId, stored.secretEncrypted), code, options.now);
    if (step === undefined) return undefined;
    return (await stores.oneTimeCodes.acceptStep(realm, userId, stored.secretEncrypted, step, pending)) ? 'otp' : undefined;
  }
  const hash = recoveryCodeHash(typed);
  if (hash === undefined) return undefined;
  return (await stores.oneTimeCodes.useRecoveryCode(realm, userId, hash)) ? 'recovery' : undefined;
}
