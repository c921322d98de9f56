import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BROWSER_PROGRAMS, writeBundles } from '../../src/http/browser-bundle.js';

/**
 * `npm run build` writes every browser program's bundle beside the compiled server, each folder
 * holding bundles alone; programs that share a folder (the passkey forms, the page script, the form-post and front-channel logout scripts) are
 * both kept, so that a built server reads them rather than needing esbuild at run time.
 */
describe('the build of the browser programs', () => {
  const folder = mkdtempSync(join(tmpdir(), 'realmgate-dist-'));
  const dist = pathToFileURL(`${folder}/`);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('writes each bundle, two in a shared folder included, and removes what an older build left', () => {
    const shared = fileURLToPath(new URL('pages/assets/browser/', dist));
    mkdirSync(shared, { recursive: true });
    writeFileSync(join(shared, 'passkey-forms.js'), '// a compiled module of an older build');
    writeBundles(dist, new URL('../../src/', import.meta.url));
    const written = Object.values(BROWSER_PROGRAMS).map((program) => program.entry.replace(/\.ts$/, '.js'));
    for (const path of written) expect(readdirSync(fileURLToPath(new URL(path.replace(/[^/]+$/, ''), dist)))).toContain(path.split('/').pop());
    expect(readdirSync(shared).sort()).toEqual(['form-post.js', 'front-channel-logout.js', 'page.js', 'passkey.js']);
  }, 60_000);
});
