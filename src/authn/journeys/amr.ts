/** Factors by RFC 8176 method: something known, something held. */
const KNOWLEDGE = new Set(['pwd', 'pin', 'kba']);
const POSSESSION = new Set(['otp', 'hwk', 'swk', 'sms']);

/**
 * The `amr` of a complete sign-in: its methods, and `mfa` when they span more than one
 * factor, or when a method is multi-factor by itself (RFC 8176 §2).
 */
export function finalAmr(amr: readonly string[]): string[] {
  const knows = amr.some((method) => KNOWLEDGE.has(method));
  const holds = amr.some((method) => POSSESSION.has(method));
  return knows && holds && !amr.includes('mfa') ? [...amr, 'mfa'] : [...amr];
}
