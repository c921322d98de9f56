import type { CredentialDeviceType } from '@simplewebauthn/server';
import { z } from 'zod';
import type { Passkey } from '../store/passkeys.js';
import { sha256 } from '../secrets.js';

/**
 * What a WebAuthn ceremony posts and answers, checked before the library verifies it: the
 * shapes of the browser's results, where a challenge was issued, why a ceremony failed.
 */

/** The posted ceremony result is JSON in a form field; a real one is a few kilobytes. */
export const MAX_RESPONSE_LENGTH = 48 * 1024;
const base64url = (max: number) => z.string().max(max).regex(/^[A-Za-z0-9_-]*$/);
/** A credential id is at most 1023 bytes (WebAuthn L3 §4 "Credential ID"). */
const credentialId = base64url(1364).min(1);

export const AssertionSchema = z.object({
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: base64url(4096).min(1),
    authenticatorData: base64url(4096).min(37),
    signature: base64url(8192).min(1),
    userHandle: base64url(128).nullish(),
  }),
});

export const AttestationSchema = z.object({
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: base64url(4096).min(1),
    attestationObject: base64url(MAX_RESPONSE_LENGTH).min(1),
    transports: z.array(z.string().max(32)).max(16).optional(),
  }),
});

/** The part of CollectedClientData (WebAuthn L3 §5.8.1) read before verifying: which challenge it answers. */
export const ClientDataSchema = z.object({ challenge: base64url(512).min(16) });

/** AuthenticatorTransport (WebAuthn L3 §5.8.4): only these are stored and handed back to browsers. */
export const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

/**
 * Where a challenge was issued, which its answer must come back to: a sign-in transaction,
 * or a signed-in session in one browser (the account page).
 */
export type ChallengeBinding = { readonly transactionId: string } | { readonly sid: string; readonly browser: string };

export type Ceremony = 'webauthn.get' | 'webauthn.create';

/** The key a challenge is stored by: the ceremony, where it was issued, and the challenge itself. */
export function challengeKey(ceremony: Ceremony, binding: ChallengeBinding, challenge: string): Buffer {
  const where = 'transactionId' in binding ? `transaction\0${binding.transactionId}` : `session\0${binding.sid}\0${binding.browser}`;
  return sha256(`${ceremony}\0${where}\0${challenge}`);
}

/** Why a ceremony failed: the person sees a message chosen by the caller, never the detail. */
export type CeremonyFailure =
  /** Nothing was posted: the page ran without JavaScript. */
  | 'missing'
  | 'malformed'
  /** The challenge is unknown, used, expired, or was issued elsewhere. */
  | 'expired'
  /** Verification failed: unknown credential, another person's, signature, origin, RP ID, counter… */
  | 'refused'
  | 'duplicate'
  | 'limit';

export type Failed = { readonly ok: false; readonly failure: CeremonyFailure; readonly detail?: string };

/** A verified ceremony: the passkey used (or registered), and the RFC 8176 methods it stands for. */
export type CeremonyOutcome = { readonly ok: true; readonly passkey: Passkey; readonly userVerified: boolean; readonly amr: string[] } | Failed;

/**
 * RFC 8176 methods of a passkey: `swk` for a backup-eligible credential (a synced passkey,
 * whose key lives in a software keychain), `hwk` for a device-bound one; and `mfa` when the
 * authenticator verified the user, as the PIN or biometric that unlocks the key is a second
 * factor. `pin` and `fpt` are not claimed, as WebAuthn does not say how the user was
 * verified; `user` (presence) would add nothing, as every assertion has it.
 */
export function passkeyAmr(deviceType: CredentialDeviceType, userVerified: boolean): string[] {
  const key = deviceType === 'multiDevice' ? 'swk' : 'hwk';
  return userVerified ? [key, 'mfa'] : [key];
}

/** The WebAuthn user handle of a person: the 16 bytes of their id, which names nothing (WebAuthn L3 §14.6.1). */
export function userHandleOf(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId.replace(/-/g, ''), 'hex'));
}

