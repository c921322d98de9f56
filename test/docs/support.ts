import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { expect } from 'vitest';
import { cliEnv } from '../cli/support.js';
import { ADMIN_TOKEN, freePort } from '../support/app.js';
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

export interface BashRun {
  code: number | null;
  /** Standard output and error, as they came. */
  output: string;
}

/** Runs `script` with `bash -c` to its end, in `cwd` (the checkout unless told). */
export function bash(script: string, env: NodeJS.ProcessEnv, cwd: string = PROJECT_ROOT): Promise<BashRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** The tour's `call`, `admin` and `field`, as the README defines them. */
export function tourFunctions(): string {
  const [first] = shellBlocks(section('README.md', 'A five-minute tour'));
  const lines = first!.split('\n').filter((line) => /^(call|admin|field)\(\) \{/.test(line));
  expect(lines).toHaveLength(3);
  return lines.join('\n');
}

/**
 * Runs shell blocks in order, under `set -euo pipefail`, with the tour's shell functions, against
 * the listening server at `baseUrl` (its PORT, the admin token).
 */
export const runWithTourFunctions = (blocks: string[], baseUrl: string): Promise<BashRun> =>
  bash(['set -euo pipefail', tourFunctions(), ...blocks].join('\n'), {
    PATH: [dirname(process.execPath), process.env.PATH].join(delimiter),
    PORT: new URL(baseUrl).port,
    ADMIN_TOKEN,
  });

/**
 * Runs shell blocks in order, under `set -euo pipefail`, with `realmgate` the built CLI (buildOnce
 * first) pointed at the server at `baseUrl` with the admin token; `vars` are the reader's own.
 */
export const runWithCli = (blocks: string[], baseUrl: string, vars: Record<string, string> = {}, cwd: string = PROJECT_ROOT): Promise<BashRun> =>
  bash(
    ['set -euo pipefail', 'realmgate() { node "$REALMGATE_CLI" "$@"; }', ...blocks].join('\n'),
    cliEnv({ ...vars, REALMGATE_CLI: join(PROJECT_ROOT, 'dist/cli/main.js'), REALMGATE_URL: baseUrl, REALMGATE_ADMIN_TOKEN: ADMIN_TOKEN }),
    cwd,
  );
