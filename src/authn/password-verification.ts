import { createHash } from 'node:crypto';
import argon2 from 'argon2';
import type { User, UserStore } from '../store/users.js';
import { randomSecret } from '../secrets.js';
import { PASSWORD_HASHING } from './password-hashing.js';

/** The `amr` value of a sign-in by password (RFC 8176 §2). */
export const PASSWORD_AMR: readonly string[] = Object.freeze(['pwd']);

/**
 * What a sign-in keeps of the password it checked, to begin its session only while that password
 * is still the person's (src/store/sessions.ts insertSession computes the same of the stored hash):
 * the SHA-256 of the argon2 hash, in hex.
 */
export function passwordFingerprint(passwordHash: string): string {
  return createHash('sha256').update(passwordHash).digest('hex');
}

/**
 * A hash of a random password, made with the parameters of real ones, to verify against
 * when there is no real hash: an unknown username then costs as much as a wrong password.
 */
let dummyHash: Promise<string> | undefined;

function dummy(): Promise<string> {
  dummyHash ??= argon2.hash(randomSecret(), PASSWORD_HASHING).catch((error: unknown) => {
    dummyHash = undefined; // try again next time rather than keep a failure
    throw error;
  });
  return dummyHash;
}

/**
 * The user of the realm with this username and password, or undefined, in about the same
 * time whether the username exists or not (OWASP Authentication Cheat Sheet, "Authentication
 * Responses"). The password is never logged or kept.
 */
export async function verifyPassword(users: UserStore, realm: string, username: string, password: string): Promise<User | undefined> {
  const user = await users.get(realm, username);
  if (!user?.passwordHash) {
    await argon2.verify(await dummy(), password);
    return undefined;
  }
  return (await argon2.verify(user.passwordHash, password)) ? user : undefined;
}
