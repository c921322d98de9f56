/**
 * What the commands print: aligned tables for people, the server's JSON for scripts. Text
 * from the server (a client's name may come from anyone who can register one) is printed
 * without control characters, so that it cannot drive the terminal.
 */

/** JSON escapes C0 controls itself; DEL and the C1 controls (U+009B is a CSI to some terminals) are escaped too: the same JSON value. */
export function printJson(value: unknown): void {
  const json = JSON.stringify(value, null, 2).replace(/[\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  write(`${json}\n`);
}

export function printLines(text: string): void {
  write(text.endsWith('\n') ? text : `${text}\n`);
}

let pipeGuarded = false;

/** `realmgate … | head -1`: a reader that stops early ends the command quietly, not with a stack trace. */
function write(text: string): void {
  if (!pipeGuarded) {
    pipeGuarded = true;
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(process.exitCode ?? 0);
    });
  }
  process.stdout.write(text);
}

/** A notice for the person at the terminal, kept off stdout so that the data stays clean. */
export function notice(text: string): void {
  process.stderr.write(`${text}\n`);
}

/** One cell: arrays space-separated, objects as JSON, nothing as `-` (and null as null: a setting turned off). */
export function cell(value: unknown): string {
  let text: string;
  if (value === undefined || value === '') text = '-';
  else if (value === null) text = 'null';
  else if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null)) {
    text = value.length === 0 ? '-' : value.join(' ');
  } else if (typeof value === 'object') text = JSON.stringify(value);
  else text = String(value);
  return printable(text);
}

export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

export type Column<Row> = readonly [heading: string, value: (row: Row) => unknown];

/** Rows under upper-case headings, columns two spaces apart. */
export function table<Row>(columns: readonly Column<Row>[], rows: readonly Row[]): string {
  const cells = [columns.map(([heading]) => heading.toUpperCase()), ...rows.map((row) => columns.map(([, value]) => cell(value(row))))];
  return aligned(cells);
}

/** Name and value pairs, one a line. */
export function fields(pairs: ReadonlyArray<readonly [string, unknown]>): string {
  return aligned(pairs.map(([name, value]) => [name, cell(value)]));
}

/** Every field of an object answered by the server, in its order. */
export function objectFields(object: Record<string, unknown>): string {
  return fields(Object.entries(object));
}

function aligned(lines: string[][]): string {
  const widths: number[] = [];
  for (const line of lines) line.forEach((text, i) => (widths[i] = Math.max(widths[i] ?? 0, text.length)));
  return lines
    .map((line) => line.map((text, i) => (i === line.length - 1 ? text : text.padEnd(widths[i]!))).join('  '))
    .join('\n');
}
