import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { readDoc, runWithTourFunctions, shellBlocks } from './support.js';

/**
 * docs/resources.md's example holds: its shell block, run by bash with the tour's shell
 * functions (README.md) against a listening server, answers what its comments say.
 */
const DOC = 'docs/resources.md';

describe(`the example of ${DOC}`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
  });
  afterAll(() => t?.close());

  it('runs: two resources registered and read back, a token for one and for both (aud and scope), an unknown one refused', async () => {
    const blocks = shellBlocks(readDoc(DOC));
    expect(blocks).toHaveLength(1);
    const run = await runWithTourFunctions(blocks, t.baseUrl);
    expect(run.code, run.output).toBe(0);
    // Each comment of the block is a line of the output, as written.
    const expected = [...blocks[0]!.matchAll(/^# (.+)$/gm)].map((match) => match[1]!);
    expect(expected).toHaveLength(5);
    const lines = run.output.split('\n');
    for (const line of expected) expect(lines, run.output).toContain(line);
  });
});
