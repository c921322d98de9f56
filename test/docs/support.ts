import { readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { expect } from 'vitest';
import { freePort } from '../support/app.js';
import { type Exit, PROJECT_ROOT, ServerProcess, buildOnce, serverEnv } from '../support/process.js';

/** The documentation's shell examples, run as a reader runs them: bash, curl and the built server. */

export const readDoc = (file: string): string => readFileSync(join(PROJECT_ROOT, file), 'utf8');

/** The ```sh blocks of a markdown text, each as its text. */
export const shellBlocks = (markdown: string): string[] => [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((block) => block[1]!);

/** The text of the `## heading` section of a markdown document, up to the next `## `. */
export function section(file: string, heading: string): string {
  const text = readDoc(file);
  const start = text.indexOf(`\n## ${heading}\n`);
  expect(start, `${file} has a section "${heading}"`).toBeGreaterThan(-1);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** The command lines of a shell block, comments and blank lines left out. */
export const commandLines = (block: string): string[] =>
  block
    .split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

export interface ScriptRun {
  port: number;
  exit: Exit;
  stdout: string;
  output: string;
}

/**
 * Runs a bash script in the checkout, with the built dist/, a free PORT and nothing else of the
 * test harness's environment; `node` is the one running the tests.
 */
export async function runScript(args: string[], timeoutMs: number): Promise<ScriptRun> {
  await buildOnce();
  const port = await freePort();
  const path = [dirname(process.execPath), process.env.PATH].join(delimiter);
  const script = new ServerProcess('bash', args, serverEnv({ PORT: String(port), PATH: path }));
  const exit = await script.waitForExit(timeoutMs);
  return { port, exit, stdout: script.stdout, output: script.output };
}

/** The rest of the output line that starts with `label`. */
export function after(output: string, label: string): string {
  const line = output.split('\n').find((candidate) => candidate.startsWith(label));
  expect(line, `a line starting "${label}" in:\n${output}`).toBeDefined();
  return line!.slice(label.length);
}
