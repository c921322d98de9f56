/**
 * Times in the text arrays of the batched inserts (src/store/token-statements.ts,
 * src/store/audit-events.ts): milliseconds since the epoch rather than ISO text. PostgreSQL
 * reads a float8 and scales it for about a microsecond less per value than it parses ISO text
 * (`timestamptz_in`), and Node writes the number for less than `toISOString`; a token's row
 * carries four times, its event two. Exact to the millisecond: float8 seconds are rounded to
 * the microsecond by `to_timestamp`.
 */
export const epochMs = (date: Date): string => String(date.getTime());

/** SQL reading a column of `epochMs` text back as a timestamptz (NULL stays NULL). */
export const fromEpochMs = (column: string): string => `to_timestamp(${column}::float8 / 1000)`;
