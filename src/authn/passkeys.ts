import {
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  type VerifiedAuthenticationResponse,
  type VerifiedRegistrationResponse,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { z } from 'zod';
import { randomSecret } from '../secrets.js';
import {
  AssertionSchema,
  AttestationSchema,
  type CeremonyFailure,
  type CeremonyOutcome,
  type ChallengeBinding,
  ClientDataSchema,
  type Failed,
  MAX_RESPONSE_LENGTH,
  TRANSPORTS,
  challengeKey,
  passkeyAmr,
  userHandleOf,
} from './passkey-ceremony.js';
import type { Passkey, PasskeyStore } from '../store/passkeys.js';
import type { WebauthnChallengeStore } from '../store/webauthn-challenges.js';

/**
 * The public key algorithms a passkey may use (COSE ids): EdDSA, ES256, RS256, offered and
 * accepted alike. Named here rather than left to @simplewebauthn's default, which probes the
 * runtime with SubtleCrypto.supports() for ML-DSA, both experimental in Node 24 (each probe
 * printed an ExperimentalWarning).
 */
const PASSKEY_ALGORITHMS = [-8, -7, -257];

/** How long a challenge may be answered: it is issued when the page is shown. */
const CHALLENGE_LIFETIME_SECONDS = 5 * 60;
/** How long the browser waits for the authenticator (WebAuthn L3 §5.4 `timeout`). */
const CEREMONY_TIMEOUT_MS = 2 * 60_000;
export const MAX_PASSKEYS_PER_PERSON = 20;
export const MAX_PASSKEY_NAME_LENGTH = 64;

/** A name a person gave a passkey, made printable and short; a default when they gave none. */
export function passkeyName(input: string | undefined, fallback = 'Passkey'): string {
  const cleaned = (input ?? '').replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '').trim().slice(0, MAX_PASSKEY_NAME_LENGTH).trim();
  return cleaned || fallback;
}

/**
 * The relying party (WebAuthn L3 §4): BASE_URL's hostname is the RP ID and its origin the
 * only origin accepted, for every realm (realms share the origin; a credential is looked up
 * within its realm). Challenges are stored for one use, five minutes, bound to where they
 * were issued.
 */
export class RelyingParty {
  readonly id: string;
  readonly origin: string;

  constructor(
    baseUrl: string,
    private readonly passkeys: PasskeyStore,
    private readonly challenges: WebauthnChallengeStore,
  ) {
    const url = new URL(baseUrl);
    this.id = url.hostname;
    this.origin = url.origin;
  }

  /**
   * Options of an authentication ceremony: for the person already identified, with their
   * passkeys as allowCredentials (a second factor); or, for no one yet, a discoverable
   * credential with user verification required (a passwordless sign-in).
   */
  async authenticationOptions(
    realm: string,
    binding: ChallengeBinding,
    person?: { userId: string; passkeys: readonly Passkey[] },
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const challenge = randomSecret();
    await this.challenges.issue(challengeKey('webauthn.get', binding, challenge), {
      realm,
      userId: person?.userId,
      challenge,
      lifetimeSeconds: CHALLENGE_LIFETIME_SECONDS,
    });
    return generateAuthenticationOptions({
      rpID: this.id,
      challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
      timeout: CEREMONY_TIMEOUT_MS,
      userVerification: person ? 'preferred' : 'required',
      ...(person ? { allowCredentials: person.passkeys.map(descriptorOf) } : {}),
    });
  }

  /**
   * Options of a registration ceremony: a discoverable credential (resident key required,
   * WebAuthn L3 §5.4.6), so that it can sign in without a username; user verification is
   * preferred here and required when a passkey signs in alone.
   */
  async registrationOptions(
    realm: string,
    binding: ChallengeBinding,
    person: { userId: string; username: string; passkeys: readonly Passkey[] },
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const challenge = randomSecret();
    await this.challenges.issue(challengeKey('webauthn.create', binding, challenge), {
      realm,
      userId: person.userId,
      challenge,
      lifetimeSeconds: CHALLENGE_LIFETIME_SECONDS,
    });
    return generateRegistrationOptions({
      rpName: realm,
      rpID: this.id,
      userID: userHandleOf(person.userId),
      userName: person.username,
      userDisplayName: person.username,
      challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
      timeout: CEREMONY_TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: person.passkeys.map(descriptorOf),
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
      supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    });
  }

  /**
   * Verifies an authentication ceremony's result (WebAuthn L3 §7.2) and records the use.
   * With `userId`, the passkey must be that person's; without, it must be discoverable
   * (a user handle) and have verified the user.
   */
  async verifyAuthentication(
    realm: string,
    binding: ChallengeBinding,
    posted: string | undefined,
    expected: { userId?: string | undefined },
  ): Promise<CeremonyOutcome> {
    const parsed = parseResponse(posted, AssertionSchema);
    if (!parsed.ok) return parsed;
    const response = parsed.value;
    const issued = await this.challenges.take(challengeKey('webauthn.get', binding, parsed.challenge), realm);
    if (!issued || issued.userId !== expected.userId) return failed('expired');

    const passkey = await this.passkeys.find(realm, Buffer.from(response.id, 'base64url'));
    if (!passkey) return failed('refused', 'unknown credential');
    if (expected.userId !== undefined && passkey.userId !== expected.userId) return failed('refused', "another person's credential");
    // §7.2 step 6: the user handle, when given, names the credential's owner; a passwordless sign-in needs it.
    const handle = response.response.userHandle ?? undefined;
    if (handle === undefined ? expected.userId === undefined : handle !== Buffer.from(userHandleOf(passkey.userId)).toString('base64url')) {
      return failed('refused', 'user handle does not match');
    }

    const requireUserVerification = expected.userId === undefined;
    let verified: VerifiedAuthenticationResponse;
    try {
      verified = await verifyAuthenticationResponse({
        response: { ...response, clientExtensionResults: {} } as AuthenticationResponseJSON,
        expectedChallenge: issued.challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.id,
        expectedType: 'webauthn.get',
        credential: { id: response.id, publicKey: new Uint8Array(passkey.publicKey), counter: passkey.counter, transports: [...passkey.transports] },
        requireUserVerification,
      });
    } catch (error) {
      return failed('refused', messageOf(error));
    }
    const info = verified.authenticationInfo;
    if (!verified.verified) return failed('refused', 'signature');
    if (requireUserVerification && !info.userVerified) return failed('refused', 'user not verified');
    const recorded = await this.passkeys.recordUse(realm, passkey.credentialId, { counter: info.newCounter, backedUp: info.credentialBackedUp });
    if (!recorded) return failed('refused', 'counter did not increase');
    return { ok: true, passkey, userVerified: info.userVerified, amr: passkeyAmr(info.credentialDeviceType, info.userVerified) };
  }

  /** Verifies a registration ceremony's result (WebAuthn L3 §7.1) and stores the new passkey. */
  async verifyRegistration(
    realm: string,
    binding: ChallengeBinding,
    posted: string | undefined,
    person: { userId: string; name: string },
  ): Promise<CeremonyOutcome> {
    const parsed = parseResponse(posted, AttestationSchema);
    if (!parsed.ok) return parsed;
    const response = parsed.value;
    const issued = await this.challenges.take(challengeKey('webauthn.create', binding, parsed.challenge), realm);
    if (!issued || issued.userId !== person.userId) return failed('expired');

    let verified: VerifiedRegistrationResponse;
    try {
      verified = await verifyRegistrationResponse({
        response: { ...response, clientExtensionResults: {} } as RegistrationResponseJSON,
        expectedChallenge: issued.challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.id,
        expectedType: 'webauthn.create',
        requireUserVerification: false,
        supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
      });
    } catch (error) {
      return failed('refused', messageOf(error));
    }
    if (!verified.verified) return failed('refused', 'attestation');
    const info = verified.registrationInfo;
    if ((await this.passkeys.listForUser(realm, person.userId)).length >= MAX_PASSKEYS_PER_PERSON) return failed('limit');
    const passkey = {
      credentialId: Buffer.from(info.credential.id, 'base64url'),
      realm,
      userId: person.userId,
      publicKey: Buffer.from(info.credential.publicKey),
      counter: info.credential.counter,
      transports: (response.response.transports ?? []).filter((transport) => TRANSPORTS.has(transport)),
      backedUp: info.credentialBackedUp,
      name: person.name,
    };
    if (!(await this.passkeys.create(passkey, MAX_PASSKEYS_PER_PERSON))) return failed('duplicate');
    return {
      ok: true,
      passkey: { ...passkey, createdAt: new Date(), lastUsedAt: undefined },
      userVerified: info.userVerified,
      amr: passkeyAmr(info.credentialDeviceType, info.userVerified),
    };
  }
}

function descriptorOf(passkey: Passkey): { id: string; transports: string[] } {
  return { id: passkey.credentialId.toString('base64url'), transports: [...passkey.transports] };
}

function failed(failure: CeremonyFailure, detail?: string): Failed {
  return detail === undefined ? { ok: false, failure } : { ok: false, failure, detail };
}

/** A library's reason, for the log: short, and naming no secret (the challenge was checked before). */
function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}

/** The posted JSON of a ceremony, shaped as the schema says, and the challenge its client data answers. */
function parseResponse<T extends { response: { clientDataJSON: string } }>(
  posted: string | undefined,
  schema: z.ZodType<T>,
): { ok: true; value: T; challenge: string } | Failed {
  if (posted === undefined) return failed('missing');
  if (posted.length > MAX_RESPONSE_LENGTH) return failed('malformed');
  let json: unknown;
  try {
    json = JSON.parse(posted);
  } catch {
    return failed('malformed');
  }
  const value = schema.safeParse(json);
  if (!value.success) return failed('malformed');
  let clientData: unknown;
  try {
    clientData = JSON.parse(Buffer.from(value.data.response.clientDataJSON, 'base64url').toString('utf8'));
  } catch {
    return failed('malformed');
  }
  const parsedClientData = ClientDataSchema.safeParse(clientData);
  if (!parsedClientData.success) return failed('malformed');
  return { ok: true, value: value.data, challenge: parsedClientData.data.challenge };
}
