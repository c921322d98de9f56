import { createHash } from 'node:crypto';
import argon2 from 'argon2';
import type { User, UserStore } from '../store/users.js';
import { randomSecret } from '../secrets.js';
import { type PasswordHashing, hashPassword } from './password-hashing.js';

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
 * One per set of parameters (a server has one; a test process may build servers with two).
 */
const dummyHashes = new Map<string, Promise<string>>();

function dummy(hashing: PasswordHashing): Promise<string> {
  const key = `${hashing.memoryCost},${hashing.timeCost},${hashing.parallelism}`;
  let hash = dummyHashes.get(key);
  if (!hash) {
    hash = hashPassword(randomSecret(), hashing).catch((error: unknown) => {
      dummyHashes.delete(key); // try again next time rather than keep a failure
      throw error;
    });
    dummyHashes.set(key, hash);
  }
  return hash;
}

/**
 * The user of the realm with this username and password, or undefined, in about the same
 * time whether the username exists or not (OWASP Authentication Cheat Sheet, "Authentication
 * Responses"). The password is never logged or kept. `hashing` is what the server hashes
 * new passwords with: the dummy is made with it.
 */
export async function verifyPassword(
  users: UserStore,
  hashing: PasswordHashing,
  realm: string,
  username: string,
  password: string,
): Promise<User | undefined> {
  const user = await users.get(realm, username);
  if (!user?.passwordHash) {
    await argon2.verify(await dummy(hashing), password);
    return undefined;
  }
  return (await argon2.verify(user.passwordHash, password)) ? user : undefined;
}
