import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT, serverEnv } from '../support/process.js';

/** `realmgate` as a shell user runs it: the built CLI, in a process of its own. */
export const CLI = 'dist/cli/main.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A configuration directory that holds nothing: the sign-in of `realmgate login` of whoever runs the tests is not the tests'. */
const NO_CONFIG = join(tmpdir(), `realmgate-no-config-${process.pid}`);

/**
 * The environment of a shell without realmgate's variables (those of the server, and the
 * CLI's own REALMGATE_*) nor a stored sign-in, plus `vars`.
 */
export function cliEnv(vars: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = serverEnv({});
  for (const name of Object.keys(env)) if (name.startsWith('REALMGATE_')) delete env[name];
  return { ...env, XDG_CONFIG_HOME: NO_CONFIG, ...vars };
}

/** Runs `realmgate …args` to its end; `input` is its standard input (none: /dev/null). */
export function runCli(args: string[], options: { env?: Record<string, string>; input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: PROJECT_ROOT,
      env: cliEnv(options.env),
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

/** Runs the command and expects exit 0, else fails with its output. */
export async function cliOk(args: string[], options: Parameters<typeof runCli>[1] = {}): Promise<CliResult> {
  const result = await runCli(args, options);
  if (result.code !== 0) throw new Error(`realmgate ${args.join(' ')} exited ${result.code}:\n${result.stdout}${result.stderr}`);
  return result;
}

/** The rows of a table printed by the CLI: its heading's words as keys. */
export function tableRows(text: string): Array<Record<string, string>> {
  const [heading, ...lines] = text.trimEnd().split('\n');
  const names = heading!.trim().split(/\s+/);
  // Each heading after the one before it: NAME is also the end of USERNAME.
  let from = 0;
  const starts = names.map((name) => {
    const start = heading!.indexOf(name, from);
    from = start + name.length;
    return start;
  });
  return lines.map((line) =>
    Object.fromEntries(names.map((name, i) => [name, line.slice(starts[i], starts[i + 1]).trim()])),
  );
}

/** The `name  value` lines printed for one record. */
export function fieldLines(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^(\S+)\s{2,}(.*)$/.exec(line);
    if (match) result[match[1]!] ??= match[2]!;
  }
  return result;
}
