import madge from 'madge';
import { describe, expect, it } from 'vitest';

type Graph = Awaited<ReturnType<typeof madge>>;

/**
 * madge's TypeScript reader (detective-typescript 14) reads a property that its parser marks
 * deprecated and warns once per process; that warning alone is dropped, so that the suite's
 * output stays clean. (Version 15 prints none but is an ES module that madge's CommonJS reader
 * cannot call: every file then parsed to no import, and the check found nothing.)
 */
async function graphOf(dir: string, options: Parameters<typeof madge>[1]): Promise<Graph> {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const message = typeof warning === 'string' ? warning : warning.message;
    if (message.includes("'argument' property is deprecated on TSImportType")) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return await madge(dir, options);
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** Every import madge resolved: a reader that fails quietly leaves none. */
function importsIn(graph: Graph): number {
  return Object.values(graph.obj()).reduce((sum, imports) => sum + imports.length, 0);
}

describe('the import graph', () => {
  it('of src/ has no import circle (madge --circular), type imports included', { timeout: 240_000 }, async () => {
    // Files outside src/ (the resource-server package's build, through its re-export) are not src/'s circles.
    const graph = await graphOf('src', { fileExtensions: ['ts'], tsConfig: 'tsconfig.json', excludeRegExp: [/^\.\.\//] });
    expect(Object.keys(graph.obj()).length, 'madge read the sources').toBeGreaterThan(300);
    expect(importsIn(graph), 'madge read their imports').toBeGreaterThan(1000);
    expect(graph.circular().map((files) => files.join(' > '))).toEqual([]);
  });

  it('of the resource-server package has none either', { timeout: 240_000 }, async () => {
    const graph = await graphOf('packages/resource-server/src', { fileExtensions: ['ts'], tsConfig: 'packages/resource-server/tsconfig.json' });
    expect(Object.keys(graph.obj()).length, 'madge read the sources').toBeGreaterThan(15);
    expect(importsIn(graph), 'madge read their imports').toBeGreaterThan(20);
    expect(graph.circular().map((files) => files.join(' > '))).toEqual([]);
  });
});
