import argon2 from 'argon2';

/** argon2id with the parameters OWASP recommends as a minimum (19 MiB, 2 passes, 1 lane). */
export const PASSWORD_HASHING = { type: argon2.argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/**
 * The PHC string format fixes Argon2's parameters in the order m, t, p; node-argon2 writes
 * them as m, p, t (ranisalt/node-argon2#559), which libargon2 and libsodium refuse. Writing
 * the standard order keeps stored hashes portable; node-argon2 verifies either.
 */
const NODE_ARGON2_ORDER = /^(\$argon2id\$v=\d+\$)m=(\d+),p=(\d+),t=(\d+)\$/;

export async function hashPassword(password: string): Promise<string> {
  const hash = await argon2.hash(password, PASSWORD_HASHING);
  return hash.replace(NODE_ARGON2_ORDER, '$1m=$2,t=$4,p=$3$$');
}
