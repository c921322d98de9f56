import argon2 from 'argon2';

/** argon2id's cost: memory in KiB, passes, lanes. */
export interface PasswordHashing {
  readonly memoryCost: number;
  readonly timeCost: number;
  readonly parallelism: number;
}

/** argon2id with the parameters OWASP recommends as a minimum (19 MiB, 2 passes, 1 lane). */
export const PASSWORD_HASHING: PasswordHashing = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

/**
 * The PHC string format fixes Argon2's parameters in the order m, t, p; node-argon2 writes
 * them as m, p, t (ranisalt/node-argon2#559), which libargon2 and libsodium refuse. Writing
 * the standard order keeps stored hashes portable; node-argon2 verifies either.
 */
const NODE_ARGON2_ORDER = /^(\$argon2id\$v=\d+\$)m=(\d+),p=(\d+),t=(\d+)\$/;

/**
 * `hashing` is the server's (AppDeps.passwordHashing): PASSWORD_HASHING unless the code that
 * builds the server chose otherwise (the test suite, where the cost is not what is tested).
 */
export async function hashPassword(password: string, hashing: PasswordHashing): Promise<string> {
  const hash = await argon2.hash(password, { ...hashing, type: argon2.argon2id });
  return hash.replace(NODE_ARGON2_ORDER, '$1m=$2,t=$4,p=$3$$');
}

/**
 * The most an imported hash may ask of argon2 at each check (CONTRACT.md §7): memory in KiB,
 * passes, lanes. A hash's parameters are the work of every sign-in with it; `t=200` would hold a
 * thread of the pool for seconds per attempt.
 */
export const ARGON2_BOUNDS = { m: 262_144, t: 10, p: 8 } as const;

const PHC_PARAMETERS = /^\$argon2(?:id|i|d)\$v=\d+\$([^$]+)\$/;

/** Which of an argon2 PHC string's parameters exceed ARGON2_BOUNDS (`t=200 > 10`), or undefined when none does. */
export function argon2CostExceeded(hash: string): string | undefined {
  const parameters = PHC_PARAMETERS.exec(hash)?.[1];
  if (parameters === undefined) return undefined;
  const exceeded = parameters.split(',').flatMap((pair) => {
    const [name, value] = pair.split('=') as [keyof typeof ARGON2_BOUNDS, string];
    const bound = ARGON2_BOUNDS[name];
    return bound !== undefined && Number(value) > bound ? [`${name}=${value} > ${bound}`] : [];
  });
  return exceeded.length > 0 ? exceeded.join(', ') : undefined;
}
