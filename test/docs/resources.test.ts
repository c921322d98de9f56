import { spawn } from 'node:child_process';
import { delimiter, dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { PROJECT_ROOT } from '../support/process.js';
import { readDoc, section, shellBlocks } from './support.js';

/**
 * docs/resources.md's example holds: its shell block, run by bash with the tour's shell
 * functions (README.md) against a listening server, answers what its comments say.
 */
const DOC = 'docs/resources.md';

/** The tour's `call`, `admin` and `field`, as the README defines them. */
function tourFunctions(): string {
  const [first] = shellBlocks(section('README.md', 'A five-minute tour'));
  const lines = first!.split('\n').filter((line) => /^(call|admin|field)\(\) \{/.test(line));
  expect(lines).toHaveLength(3);
  return lines.join('\n');
}

function bash(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe(`the example of ${DOC}`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
  });
  afterAll(() => t?.close());

  it('runs: two resources registered and read back, a token for one and for both (aud and scope), an unknown one refused', async () => {
    const blocks = shellBlocks(readDoc(DOC));
    expect(blocks).toHaveLength(1);
    const run = await bash(['set -euo pipefail', tourFunctions(), ...blocks].join('\n'), {
      PATH: [dirname(process.execPath), process.env.PATH].join(delimiter),
      PORT: new URL(t.baseUrl).port,
      ADMIN_TOKEN,
    });
    expect(run.code, run.output).toBe(0);
    // Each comment of the block is a line of the output, as written.
    const expected = [...blocks[0]!.matchAll(/^# (.+)$/gm)].map((match) => match[1]!);
    expect(expected).toHaveLength(5);
    const lines = run.output.split('\n');
    for (const line of expected) expect(lines, run.output).toContain(line);
  });
});
