import { spawn } from 'node:child_process';
import { delimiter, dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { PROJECT_ROOT } from '../support/process.js';
import { readDoc, section, shellBlocks } from './support.js';

/**
 * docs/authorization-data.md's example holds: its shell blocks, run in order by bash with the
 * tour's shell functions (README.md) against a listening server, answer what their comments say.
 */
const DOC = 'docs/authorization-data.md';

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

  it('runs in order: roles through a group, the claims in each token, the change in the next token, a reserved name refused', async () => {
    const blocks = shellBlocks(readDoc(DOC));
    expect(blocks).toHaveLength(3);
    const port = new URL(t.baseUrl).port;
    const run = await bash(['set -euo pipefail', tourFunctions(), ...blocks].join('\n'), {
      PATH: [dirname(process.execPath), process.env.PATH].join(delimiter),
      PORT: port,
      ADMIN_TOKEN,
    });
    expect(run.code, run.output).toBe(0);

    const line = (label: string): Record<string, unknown> => {
      const found = run.output.split('\n').find((candidate) => candidate.startsWith(label));
      expect(found, `a line "${label}" in:\n${run.output}`).toBeDefined();
      return JSON.parse(found!.slice(label.length)) as Record<string, unknown>;
    };
    expect(run.output).toContain('{"name":"accounting","description":"The accounting team","roles":["ledger:read"]}');
    expect(run.output).toContain("[ 'invoice-approver', 'ledger:read' ]");
    expect(run.output).toMatch(/^204\n204\n/m);
    const access = line('access token: ');
    expect(access).toMatchObject({ roles: ['invoice-approver', 'ledger:read'], department: 'Finance', scope: 'openid books' });
    expect(access).not.toHaveProperty('groups');
    const id = line('ID token: ');
    expect(id).toMatchObject({ roles: ['invoice-approver', 'ledger:read'], groups: ['accounting'] });
    expect(id).not.toHaveProperty('department');
    expect(line('introspection: ')).toMatchObject({ active: true, roles: ['invoice-approver', 'ledger:read'] });
    expect(line('next access token: ')).toMatchObject({ roles: ['invoice-approver'] });
    expect(run.output).toContain('{"error":"invalid_request","error_description":"claims.0.name: is set by the server and cannot be mapped"}');
  });
});
