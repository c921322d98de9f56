import { readFile } from 'node:fs/promises';
import { CliError, UsageError } from '../errors.js';
import { printable } from '../output.js';
import { readStdin } from '../stdin.js';

/** A repeatable option's values, in order. */
export const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** The text of a file, or of standard input for `-`; a file that cannot be read is a CliError naming it. */
export async function readText(source: string): Promise<string> {
  if (source === '-') return readStdin();
  try {
    return await readFile(source, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(`cannot read ${printable(source)}${code ? ` (${code})` : ''}`);
  }
}

/** The JSON of a file, or of standard input for `-`. */
export async function readJson(source: string): Promise<unknown> {
  const text = await readText(source);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${source === '-' ? 'standard input' : printable(source)} is not JSON: ${(error as Error).message}`);
  }
}

/** The body made of options and `field=value` arguments; a field given both ways is a usage error. */
export function merged(fromOptions: Record<string, unknown>, fromArguments: Record<string, unknown>): Record<string, unknown> {
  for (const name of Object.keys(fromOptions)) {
    if (Object.hasOwn(fromArguments, name)) throw new UsageError(`${name} is given both as an option and as ${name}=value`);
  }
  return { ...fromOptions, ...fromArguments };
}

/** The options that were given, by the names the admin API knows them by. */
export function given(pairs: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(pairs).filter(([, value]) => value !== undefined));
}
