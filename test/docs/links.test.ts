import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/process.js';
import { readDoc } from './support.js';

/** The README and docs/ link only to what the repository holds, and to headings that exist. */

const DOCUMENTS = ['README.md', ...readdirSync(join(PROJECT_ROOT, 'docs')).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`)];

const withoutCode = (markdown: string): string => markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');

/** GitHub's anchors for a document's headings (lower case, punctuation dropped, spaces as hyphens; repeats numbered). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** The relative link targets of a document: `[text](target)` and images, outside code. */
const relativeLinks = (markdown: string): string[] =>
  [...withoutCode(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/i.test(target));

describe('the links of the README and docs/', () => {
  it('are found', () => {
    expect(DOCUMENTS.length).toBeGreaterThan(5);
    expect(relativeLinks(readDoc('README.md')).length).toBeGreaterThan(10);
  });

  it.each(DOCUMENTS)('of %s resolve to files of the repository, and their #anchors to headings', (document) => {
    for (const target of relativeLinks(readDoc(document))) {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? join(PROJECT_ROOT, document) : join(PROJECT_ROOT, dirname(document), path);
      expect(relative(PROJECT_ROOT, file), `${document}: ${target} leaves the repository`).not.toMatch(/^\.\./);
      expect(existsSync(file), `${document}: ${target}`).toBe(true);
      if (anchor !== undefined) expect(anchors(readDoc(relative(PROJECT_ROOT, file))), `${document}: ${target}`).toContain(anchor);
    }
  });
});
