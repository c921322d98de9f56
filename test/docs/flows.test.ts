import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAll } from '../support/process.js';
import { testStoreKind } from '../support/store.js';
import { type ScriptRun, readDoc, runScript, section, shellBlocks } from './support.js';

/**
 * The examples of the documents that continue the README's tour, pasted in order as their
 * readers do: the quick start, the tour but its stop, each document's shell blocks, the stop.
 */
const CONTINUING_THE_TOUR = ['docs/flows.md', 'docs/delegation.md', 'docs/sign-in.md', 'docs/configuration.md'];

function pastedScript(): string {
  const [quickStart, ...more] = shellBlocks(section('README.md', 'Quick start'));
  expect(more).toEqual([]);
  const tour = shellBlocks(section('README.md', 'A five-minute tour'));
  const stop = tour.pop()!;
  expect(stop).toMatch(/^kill -TERM "\$SERVER"/);
  // tour.sh's own guard: on any failure, stop the server and show its log.
  const trap = readDoc('docs/tour.sh').split('\n').find((line) => line.startsWith('trap '))!;
  const examples = CONTINUING_THE_TOUR.flatMap((file) => shellBlocks(readDoc(file)).map((block, i) => `echo "--- ${file}, example ${i + 1}"\n${block}`));
  return ['set -euo pipefail', quickStart!.replace(/^npm install\b.*\n/m, ''), trap, ...tour, ...examples, stop].join('\n');
}

describe.skipIf(testStoreKind() !== 'pglite')("the documents' examples, after the tour", () => {
  let dir: string;
  let run: ScriptRun;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'realmgate-docs-'));
    writeFileSync(join(dir, 'examples.sh'), pastedScript());
    run = await runScript([join(dir, 'examples.sh')], 85_000);
  }, 90_000);

  afterAll(async () => {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('run to the end, and the server stops gracefully', () => {
    expect(run.exit, run.output).toEqual({ code: 0, signal: null });
    expect(run.stdout).toMatch(/^realmgate stopped, exit 0$/m);
    for (const file of CONTINUING_THE_TOUR) expect(run.stdout).toContain(`--- ${file}, example 1`);
  });

  it('revoke, replay a refresh token, sign a device and a till in, exchange, assert, register, go stateless and sign out as they say', () => {
    expect(run.stdout).toContain('{"active":false}');
    expect(run.stdout).toContain('the refresh token was already used; its grant is revoked');
    expect(run.stdout).toContain('<h1>Device connected</h1>');
    expect(run.stdout).toMatch(/\/bc-approve\?answered=approved$/m);
    expect(run.stdout).toMatch(/"sub":"shop".*"aud":"https:\/\/orders\.example","act":\{"sub":"gateway"\}/);
    expect(run.stdout).toMatch(/"error":"invalid_grant","error_description":"[^"]*used already"/);
    expect(run.stdout).toMatch(/^204$/m);
    expect(run.stdout).toContain('"typ":"at+jwt"');
    expect(run.stdout).toMatch(/^http:\/\/localhost:3000\/\?state=bye$/m);
  });

  it('signs request objects as flows.md says: a code for the first, its replay refused, another pushed', () => {
    expect(run.stdout).toMatch(/^http:\/\/localhost:3000\/callback\?code=[^&]+&state=jar-1&iss=/m);
    expect(run.stdout).toMatch(/^http:\/\/localhost:3000\/callback\?error=invalid_request_object&error_description=the\+request\+object\+is\+not\+accepted%3A\+it\+was\+used\+already&iss=/m);
    expect(run.stdout).toMatch(/^http:\/\/localhost:3000\/callback\?code=[^&]+&state=jar-2&iss=/m);
  });
});
