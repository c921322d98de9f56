import { type PatternNode, UNBOUNDED, UnsupportedPattern, parsePattern } from './pattern-syntax.js';

export { UnsupportedPattern } from './pattern-syntax.js';

/**
 * The most states one pattern's automaton may have: a bounded repetition is written out
 * (`[0-9]{2,34}` is 34 atoms), and the work of a match is at most the input's length times this.
 */
export const MAX_PATTERN_STATES = 1000;

type State =
  | { kind: 'atom'; test: (codePoint: string) => boolean; next: number }
  | { kind: 'split'; next: number; other: number }
  | { kind: 'assertion'; which: '^' | '$' | 'b' | 'B'; next: number }
  | { kind: 'match' };

const isWordCharacter = (c: string | undefined): boolean => c !== undefined && /^\w$/u.test(c);

/**
 * A JSON Schema `pattern` matched the way RE2 does: a Thompson automaton of the pattern, run
 * over the input once with every state it may be in at a time (a realm's schemas are written by
 * its administrators, the input by anyone). No input makes it backtrack: the time is
 * at most the input's length times the automaton's size, whatever the pattern, so `^(a+)+$`
 * costs what `^a+$` does. One atom (a class, an escape, a character) is still tested by the
 * native engine, on one code point at a time.
 */
export class LinearPattern {
  private readonly states: State[] = [];
  private readonly start: number;
  private readonly atomTests = new Map<string, (codePoint: string) => boolean>();

  constructor(readonly source: string) {
    this.start = this.compile(parsePattern(source), this.add({ kind: 'match' }));
  }

  /** Like RegExp.prototype.test: whether the pattern matches somewhere in `input`. */
  test(input: string): boolean {
    const characters = Array.from(input);
    const seen = new Int32Array(this.states.length).fill(-1);
    let current: number[] = [];
    for (let position = 0; ; position++) {
      const context = { characters, position, atEnd: position === characters.length };
      // Unanchored: a match may start at every position.
      if (this.enter(this.start, context, current, seen, position)) return true;
      if (context.atEnd) return false;
      const character = characters[position]!;
      const next: number[] = [];
      const nextContext = { characters, position: position + 1, atEnd: position + 1 === characters.length };
      for (const index of current) {
        const state = this.states[index] as Extract<State, { kind: 'atom' }>;
        if (state.test(character) && this.enter(state.next, nextContext, next, seen, position + 1)) return true;
      }
      current = next;
    }
  }

  toString(): string {
    return `/${this.source}/u (linear)`;
  }

  /**
   * Follows the empty moves from `index` at this position, collecting the atoms it reaches into
   * `into`; each state once per position (`seen`), which also ends loops of empty moves.
   */
  private enter(index: number, at: { characters: string[]; position: number; atEnd: boolean }, into: number[], seen: Int32Array, position: number): boolean {
    const stack = [index];
    while (stack.length > 0) {
      const i = stack.pop()!;
      if (seen[i] === position) continue;
      seen[i] = position;
      const state = this.states[i]!;
      if (state.kind === 'match') return true;
      if (state.kind === 'atom') into.push(i);
      else if (state.kind === 'split') stack.push(state.other, state.next);
      else if (this.holds(state.which, at)) stack.push(state.next);
    }
    return false;
  }

  private holds(which: '^' | '$' | 'b' | 'B', at: { characters: string[]; position: number; atEnd: boolean }): boolean {
    if (which === '^') return at.position === 0;
    if (which === '$') return at.atEnd;
    const boundary = isWordCharacter(at.characters[at.position - 1]) !== isWordCharacter(at.characters[at.position]);
    return which === 'b' ? boundary : !boundary;
  }

  private add(state: State): number {
    if (this.states.length >= MAX_PATTERN_STATES) throw new UnsupportedPattern(`is too large: more than ${MAX_PATTERN_STATES} states once its repetitions are written out`);
    this.states.push(state);
    return this.states.length - 1;
  }

  /** The states of `node`, leading to `next`; the index of its first. */
  private compile(node: PatternNode, next: number): number {
    switch (node.kind) {
      case 'atom':
        return this.add({ kind: 'atom', test: this.atomTest(node.source), next });
      case 'assertion':
        return this.add({ kind: 'assertion', which: node.which, next });
      case 'sequence':
        return node.items.reduceRight((following, item) => this.compile(item, following), next);
      case 'choice':
        return node.options
          .map((option) => this.compile(option, next))
          .reduceRight((other, first) => this.add({ kind: 'split', next: first, other }));
      case 'repeat':
        return this.repeat(node.item, node.min, node.max, next);
    }
  }

  /** `item` at least `min` and at most `max` times: the optional copies first (built back to front), then the required ones. */
  private repeat(item: PatternNode, min: number, max: number, next: number): number {
    let tail = next;
    if (max === UNBOUNDED) {
      const loop = this.add({ kind: 'split', next: -1, other: next });
      const body = this.compile(item, loop);
      (this.states[loop] as Extract<State, { kind: 'split' }>).next = body;
      tail = loop;
    } else {
      for (let i = min; i < max; i++) tail = this.add({ kind: 'split', next: this.compile(item, tail), other: next });
    }
    for (let i = 0; i < min; i++) tail = this.compile(item, tail);
    return tail;
  }

  private atomTest(source: string): (codePoint: string) => boolean {
    let test = this.atomTests.get(source);
    if (!test) {
      const expression = new RegExp(`^(?:${source})$`, 'u');
      test = (codePoint) => expression.test(codePoint);
      this.atomTests.set(source, test);
    }
    return test;
  }
}

/** Ajv's `code.regExp` (its RegExpEngine): every pattern of a realm's schemas is a LinearPattern. */
export function linearRegExp(source: string): LinearPattern {
  return new LinearPattern(source);
}
linearRegExp.code = 'linearRegExp';
