import { describe, expect, it } from 'vitest';
import { UnsupportedPattern, linearRegExp } from '../../src/authorization-details/linear-pattern.js';

/** A small deterministic generator (a linear congruential one): the same cases every run. */
function generator(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % below;
  };
}

/** RE2 answers as the native engine does, for the patterns it accepts. */
describe('linearRegExp', () => {
  it.each([
    ['^[A-Z]{2}[0-9A-Z]{13,32}$', ['DE02100100109307118603', 'DE0210', 'de02100100109307118603', '']],
    ['^[A-Z]{3}$', ['EUR', 'EURO', 'EU']],
    ['a|b', ['xxb', 'c']],
    ['\\bfoo\\b', ['a foo b', 'afoo', 'foo']],
    ['^(?:ab|a)*c$', ['ababac', 'abx', 'c']],
    ['x{0,2}y', ['xxy', 'y', 'xxxy', 'x']],
    ['^\\p{L}+$', ['héllo', 'h1']],
    ['^.$', ['😀', 'ab', '\n']],
    ['^(?<letter>a)b?$', ['a', 'ab', 'abb']],
    ['^\\d{2,}$', ['1', '12', '123x']],
    ['^(a|)*b$', ['aaab', 'b', 'c']],
    ['^[^@\\s]+@[^@\\s]+$', ['a@b', '@b', 'a@b@c']],
    ['^\\u{1F600}\\x41\\u0042$', ['😀AB', 'AB']],
    ['^\\uD83D\\uDE00+$', ['😀😀', '😀', '\uD83D']],
  ])('%s', (source, inputs) => {
    const linear = linearRegExp(source);
    for (const input of inputs) expect(linear.test(input), input).toBe(new RegExp(source, 'u').test(input));
  });

  it('agrees with the native engine over generated patterns and inputs', () => {
    const next = generator(7);
    const pieces = ['a', 'b', '(', ')', '|', '*', '+', '?', '[ab]', '.', '^', '$', '{1,3}', '(?:', '\\b'];
    let compared = 0;
    for (let k = 0; k < 2000; k++) {
      let source = '';
      for (let j = 1 + next(8); j > 0; j--) source += pieces[next(pieces.length)];
      let native: RegExp;
      try {
        native = new RegExp(source, 'u');
      } catch {
        continue;
      }
      const linear = linearRegExp(source);
      for (let q = 0; q < 8; q++) {
        let input = '';
        for (let j = next(7); j > 0; j--) input += 'ab '[next(3)];
        expect(linear.test(input), `/${source}/ on "${input}"`).toBe(native.test(input));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(2000);
  });

  it('takes time linear in the input where backtracking takes minutes', () => {
    const started = performance.now();
    expect(linearRegExp('^(a+)+$').test(`${'a'.repeat(1000)}!`)).toBe(false);
    expect(linearRegExp('^(a|aa)+$').test(`${'a'.repeat(1000)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it.each([['^(a)\\1$'], ['\\k<x>(?<x>a)'], ['(?=a)'], ['(?!a)'], ['(?<=a)b'], ['(?<!a)b'], ['a{1001}'], ['(a']])('refuses %s', (source) => {
    expect(() => linearRegExp(source)).toThrow(UnsupportedPattern);
  });
});

describe('named backreferences', () => {
  it('refuses \\k<name> whatever precedes it, and takes an escaped backslash before k as text', () => {
    for (const source of ['\\k<x>(?<x>a)', '(?<x>a)\\k<x>', 'b\\\\\\k<x>(?<x>a)']) expect(() => linearRegExp(source), source).toThrow(UnsupportedPattern);
    expect(linearRegExp('^\\\\k<x>$').test('\\k<x>')).toBe(true);
  });
});
