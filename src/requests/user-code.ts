import { randomInt } from 'node:crypto';

/**
 * RFC 8628 §6.1: consonants only, so that codes spell no words and hold no look-alike
 * characters (no 0/O, 1/I/L confusion: vowels and digits are left out). 20^8 codes give
 * about 34.5 bits; the device page limits wrong guesses (src/web/device-verification.ts).
 */
const ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const LENGTH = 8;

/** A new user code, normalised: eight characters of the alphabet. */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** How the person reads it: `XXXX-XXXX`. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, LENGTH / 2)}-${code.slice(LENGTH / 2)}`;
}

/**
 * What the person typed, normalised as codes are stored: upper case, without the dash or
 * spaces; undefined when it cannot be a code at all.
 */
export function normaliseUserCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]/g, '').toUpperCase();
  return code.length === LENGTH && [...code].every((char) => ALPHABET.includes(char)) ? code : undefined;
}
