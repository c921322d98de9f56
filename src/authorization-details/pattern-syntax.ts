/**
 * The regular expressions of JSON Schema `pattern` and `patternProperties` (ECMAScript syntax,
 * `u` flag) read into a tree, for src/authorization-details/linear-pattern.ts to match in linear
 * time. What needs backtracking to match (backreferences, lookahead, lookbehind, modifiers) is
 * refused with UnsupportedPattern.
 */

/** One node of a pattern. An atom matches one code point, as the native expression `source` would. */
export type PatternNode =
  | { readonly kind: 'atom'; readonly source: string }
  | { readonly kind: 'assertion'; readonly which: '^' | '$' | 'b' | 'B' }
  | { readonly kind: 'sequence'; readonly items: readonly PatternNode[] }
  | { readonly kind: 'choice'; readonly options: readonly PatternNode[] }
  | { readonly kind: 'repeat'; readonly item: PatternNode; readonly min: number; readonly max: number };

export class UnsupportedPattern extends Error {}

/** A repetition without an upper bound. */
export const UNBOUNDED = Number.POSITIVE_INFINITY;

/** A surrogate pair written as two `\u` escapes, and a repetition's bounds, read where the reader stands. */
const SURROGATE_PAIR = /\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}/y;
const BOUNDS = /\{(\d+)(,(\d*))?\}/y;

/** Characters that end an alternative or cannot start an atom. */
const SYNTAX = new Set(['|', ')', '*', '+', '?', '{']);

/** Reads `source`, which must be a valid expression with the `u` flag; throws UnsupportedPattern otherwise. */
export function parsePattern(source: string): PatternNode {
  try {
    new RegExp(source, 'u');
  } catch (error) {
    throw new UnsupportedPattern(`is not a valid regular expression: ${(error as Error).message}`);
  }
  const reader = new Reader(source);
  const node = reader.disjunction();
  if (!reader.done()) throw new UnsupportedPattern('is not a valid regular expression');
  return node;
}

class Reader {
  private at = 0;

  constructor(private readonly source: string) {}

  done(): boolean {
    return this.at >= this.source.length;
  }

  private peek(offset = 0): string {
    return this.source[this.at + offset] ?? '';
  }

  disjunction(): PatternNode {
    const options = [this.alternative()];
    while (this.peek() === '|') {
      this.at++;
      options.push(this.alternative());
    }
    return options.length === 1 ? options[0]! : { kind: 'choice', options };
  }

  private alternative(): PatternNode {
    const items: PatternNode[] = [];
    while (!this.done() && this.peek() !== '|' && this.peek() !== ')') items.push(this.term());
    return items.length === 1 ? items[0]! : { kind: 'sequence', items };
  }

  private term(): PatternNode {
    const assertion = this.assertion();
    if (assertion) return assertion;
    return this.quantified(this.atom());
  }

  private assertion(): PatternNode | undefined {
    const c = this.peek();
    if (c === '^' || c === '$') {
      this.at++;
      return { kind: 'assertion', which: c };
    }
    if (c === '\\' && (this.peek(1) === 'b' || this.peek(1) === 'B')) {
      const which = this.peek(1) as 'b' | 'B';
      this.at += 2;
      return { kind: 'assertion', which };
    }
    return undefined;
  }

  private atom(): PatternNode {
    const c = this.peek();
    if (c === '(') return this.group();
    if (c === '[') return { kind: 'atom', source: this.take(this.classEnd()) };
    if (c === '\\') return { kind: 'atom', source: this.take(this.escapeEnd()) };
    if (SYNTAX.has(c)) throw new UnsupportedPattern('is not a valid regular expression');
    // One code point: a surrogate pair is one character with the `u` flag.
    return { kind: 'atom', source: this.take(this.at + String.fromCodePoint(this.source.codePointAt(this.at)!).length) };
  }

  /** `sticky` (a regular expression with the `y` flag) matched at the current position. */
  private matchesHere(sticky: RegExp): RegExpExecArray | null {
    sticky.lastIndex = this.at;
    return sticky.exec(this.source);
  }

  private take(end: number): string {
    const text = this.source.slice(this.at, end);
    this.at = end;
    return text;
  }

  private group(): PatternNode {
    this.at++;
    if (this.peek() === '?') {
      const kind = this.peek(1);
      if (kind === ':') this.at += 2;
      else if (kind === '<' && this.peek(2) !== '=' && this.peek(2) !== '!') this.at = this.source.indexOf('>', this.at) + 1;
      else throw new UnsupportedPattern('uses lookahead, lookbehind or modifiers, which cannot be matched in linear time');
    }
    const inner = this.disjunction();
    this.at++; // ')'
    return inner;
  }

  /** Where the class starting here ends: after its `]`, escapes skipped. */
  private classEnd(): number {
    let i = this.at + 1;
    while (i < this.source.length && this.source[i] !== ']') i += this.source[i] === '\\' ? 2 : 1;
    return i + 1;
  }

  /** Where the escape starting here ends; backreferences are refused. */
  private escapeEnd(): number {
    const c = this.peek(1);
    if ((c >= '1' && c <= '9') || c === 'k') throw new UnsupportedPattern('uses a backreference, which cannot be matched in linear time');
    if (c === 'p' || c === 'P' || (c === 'u' && this.peek(2) === '{')) return this.source.indexOf('}', this.at) + 1;
    // With the `u` flag, `\uD83D\uDE00` (a surrogate pair) is one character.
    if (c === 'u') return this.matchesHere(SURROGATE_PAIR) ? this.at + 12 : this.at + 6;
    if (c === 'x') return this.at + 4;
    if (c === 'c') return this.at + 3;
    return this.at + 2;
  }

  private quantified(item: PatternNode): PatternNode {
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === '*' || c === '+' || c === '?') {
      this.at++;
      [min, max] = c === '*' ? [0, UNBOUNDED] : c === '+' ? [1, UNBOUNDED] : [0, 1];
    } else if (c === '{') {
      const match = this.matchesHere(BOUNDS)!;
      this.at += match[0].length;
      min = Number(match[1]);
      max = match[2] === undefined ? min : match[3] === '' ? UNBOUNDED : Number(match[3]);
    } else {
      return item;
    }
    if (this.peek() === '?') this.at++; // lazy: the same strings match
    return { kind: 'repeat', item, min, max };
  }
}
