import argon2 from 'argon2';

/** argon2id with the parameters OWASP recommends as a minimum (19 MiB, 2 passes, 1 lane). */
export const PASSWORD_HASHING = { type: argon2.argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, PASSWORD_HASHING);
}
