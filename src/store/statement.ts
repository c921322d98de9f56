/**
 * The parameters of a statement made of parts (CTEs that several store modules write, so that
 * what one request changes goes to the database in one round trip): each part takes the
 * placeholders of its values in turn. The same parts in the same order make the same text, so
 * that the statement is prepared once per connection (src/store/pg.ts).
 */
export class StatementParams {
  readonly values: unknown[] = [];

  /** The placeholder of a new parameter: `$n`. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** For builders that number their parameters themselves: the first one's number, then their values. */
  addAll(values: readonly unknown[]): number {
    const first = this.values.length + 1;
    this.values.push(...values);
    return first;
  }
}
