import { RE2JS } from 're2js';

/**
 * The most instructions one pattern's automaton may have: the work of a match is at most the
 * input's length times this (RE2 itself refuses a repetition count over 1000).
 */
export const MAX_PATTERN_STATES = 5000;

export class UnsupportedPattern extends Error {}

/** ECMAScript writes an astral character in `u` mode as two escaped surrogates; RE2 reads code points. */
const SURROGATE_PAIR = /\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})/gi;

/** A named backreference (`\k<name>`) after an even run of backslashes: re2js would read it as the letter k. */
const NAMED_BACKREFERENCE = /(?:^|[^\\])(?:\\\\)*\\k</;

/**
 * A JSON Schema `pattern` (ECMAScript syntax) matched by RE2 (re2js): an automaton run over the
 * input once, with no backtracking, so that `^(a+)+$` costs what `^a+$` does whatever a request
 * sends. What RE2 cannot match so (backreferences, lookahead, lookbehind) is refused, with
 * UnsupportedPattern, when the schema is set.
 */
export function linearRegExp(source: string): { test(input: string): boolean } {
  if (NAMED_BACKREFERENCE.test(source)) throw new UnsupportedPattern(`pattern ${JSON.stringify(source)} uses a backreference, which cannot be matched in linear time`);
  const translated = RE2JS.translateRegExp(
    source.replace(SURROGATE_PAIR, (_, high: string, low: string) => `\\u{${String.fromCharCode(parseInt(high, 16), parseInt(low, 16)).codePointAt(0)!.toString(16)}}`),
  );
  let pattern: RE2JS;
  try {
    pattern = RE2JS.compile(translated);
  } catch (error) {
    throw new UnsupportedPattern(`pattern ${JSON.stringify(source)} cannot be matched in linear time: ${(error as Error).message}`);
  }
  if (pattern.programSize() > MAX_PATTERN_STATES) throw new UnsupportedPattern(`pattern ${JSON.stringify(source)} is too large (at most ${MAX_PATTERN_STATES} states)`);
  return pattern;
}
/** Ajv's `code.regExp` needs the engine's name for the code it generates. */
linearRegExp.code = 'linearRegExp';
