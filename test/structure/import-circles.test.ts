import madge from 'madge';
import { describe, expect, it } from 'vitest';

describe('the import graph of src/', () => {
  it('has no import circle (madge --circular), type imports included', { timeout: 240_000 }, async () => {
    // Files outside src/ (the resource-server package's build, through its re-export) are not src/'s circles.
    const graph = await madge('src', { fileExtensions: ['ts'], tsConfig: 'tsconfig.json', excludeRegExp: [/^\.\.\//] });
    expect(Object.keys(graph.obj()).length, 'madge read the sources').toBeGreaterThan(300);
    const circles = graph.circular().map((files) => files.join(' > '));
    expect(circles).toEqual([]);
  });
});
