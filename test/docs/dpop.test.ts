import { spawn } from 'node:child_process';
import { delimiter, dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { PROJECT_ROOT } from '../support/process.js';
import { readDoc, section, shellBlocks } from './support.js';

/**
 * docs/dpop.md's example holds: its shell blocks, run in order by bash with the tour's shell
 * functions (README.md) against a listening server, answer what their comments say.
 */
const DOC = 'docs/dpop.md';

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

  it('runs in order: a bound token, its introspection, a replayed proof refused, UserInfo by DPoP and not as a bearer token, a nonce', async () => {
    const blocks = shellBlocks(readDoc(DOC));
    expect(blocks).toHaveLength(4);
    const run = await bash(['set -euo pipefail', tourFunctions(), ...blocks].join('\n'), {
      PATH: [dirname(process.execPath), process.env.PATH].join(delimiter),
      PORT: new URL(t.baseUrl).port,
      ADMIN_TOKEN,
    });
    expect(run.code, run.output).toBe(0);

    const line = (label: string): string => {
      const found = run.output.split('\n').find((candidate) => candidate.startsWith(label));
      expect(found, `a line "${label}" in:\n${run.output}`).toBeDefined();
      return found!.slice(label.length);
    };
    const introspection = JSON.parse(line('introspection: ')) as Record<string, unknown>;
    expect(introspection).toMatchObject({ active: true, scope: 'openid profile', client_id: 'till', username: 'dana', token_type: 'DPoP', cnf: { jkt: expect.stringMatching(/^[\w-]{43}$/) } });
    expect(JSON.parse(line('the same proof again: '))).toEqual({ error: 'invalid_dpop_proof', error_description: 'the DPoP proof was used before (its jti is spent)' });
    expect(JSON.parse(line('userinfo: '))).toMatchObject({ sub: expect.any(String), preferred_username: 'dana' });
    expect(JSON.parse(line('as a bearer token: '))).toEqual({
      error: 'invalid_token',
      error_description: 'the access token is bound to a DPoP key: send it with the DPoP scheme and a proof',
    });
    expect(line('nonce: ')).toMatch(/^[\w-]{22}$/);
    expect(line('with the nonce: ')).toBe('DPoP');
  });
});
