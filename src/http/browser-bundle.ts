import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BuildOptions } from 'esbuild';

/**
 * A program that runs in the browser: TypeScript in a folder `browser/` of its own (type-checked
 * with the DOM library by tsconfig.browser.json, left out of the server's tsconfig), bundled by
 * esbuild into one script.
 */
export interface BrowserProgram {
  /** The entry point, relative to src/ (or dist/): `{folder}/browser/{name}.ts`. */
  readonly entry: string;
  /** `esm` for a `<script type="module">`, `iife` for a classic script. */
  readonly format: 'esm' | 'iife';
  /** The oldest JavaScript the browsers it serves run (esbuild's `target`). */
  readonly target: 'es2017' | 'es2022';
}

export const BROWSER_PROGRAMS = {
  adminConsole: { entry: 'admin/console/browser/main.ts', format: 'esm', target: 'es2022' },
  // The sign-in pages serve every person's browser: older ones too.
  passkeyForms: { entry: 'pages/assets/browser/passkey.ts', format: 'iife', target: 'es2017' },
  // Inlined into their pages, each allowed by the hash of its text.
  formPost: { entry: 'pages/assets/browser/form-post.ts', format: 'iife', target: 'es2017' },
  frontChannelLogout: { entry: 'pages/assets/browser/front-channel-logout.ts', format: 'iife', target: 'es2017' },
  // Every page with a password field or a date: the show-password button, local times.
  pageEnhancements: { entry: 'pages/assets/browser/page.ts', format: 'iife', target: 'es2017' },
} as const satisfies Record<string, BrowserProgram>;

/** src/ when running from the sources (vitest, npm run dev), dist/ when running the build. */
const ROOT = new URL('../', import.meta.url);

const builtPath = (program: BrowserProgram, root: URL): string => fileURLToPath(new URL(program.entry.replace(/\.ts$/, '.js'), root));

function options(program: BrowserProgram, root: URL): BuildOptions {
  return {
    entryPoints: [fileURLToPath(new URL(program.entry, root))],
    // The bundle names each module by its path from here: the same bytes wherever it is built.
    absWorkingDir: fileURLToPath(new URL('../', root)),
    bundle: true,
    format: program.format,
    target: program.target,
    platform: 'browser',
    charset: 'utf8',
    legalComments: 'none',
    // Read by people who wonder what the console does: kept as written.
    minify: false,
    write: false,
    logLevel: 'silent',
  };
}

/**
 * The program's script. `npm run build` writes it beside the compiled server (dist/…/browser/{name}.js),
 * and a built server reads that. Running from the sources there is none: the program is bundled
 * here, once, when its module is loaded (esbuild is a development dependency, needed then only).
 */
export function browserBundle(program: BrowserProgram): Buffer {
  const built = builtPath(program, ROOT);
  if (existsSync(built)) return readFileSync(built);
  return bundle(program, ROOT);
}

function bundle(program: BrowserProgram, sources: URL): Buffer {
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const [output] = esbuild.buildSync(options(program, sources)).outputFiles ?? [];
  if (output === undefined) throw new Error(`esbuild wrote nothing for ${program.entry}`);
  return Buffer.from(output.contents);
}

/** `node dist/http/browser-bundle.js` (npm run build): bundles each program from src/ into dist/ (`dist`, `sources`: a test's folders). */
export function writeBundles(dist: URL = ROOT, sources: URL = new URL('../src/', dist)): void {
  const programs = Object.values(BROWSER_PROGRAMS);
  // A folder holds bundles alone: the compiled modules an older build left there go. Emptied once
  // each, before any bundle is written, as two programs may share one (pages/assets/browser).
  for (const folder of new Set(programs.map((program) => dirname(builtPath(program, dist))))) {
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
  }
  for (const program of programs) writeFileSync(builtPath(program, dist), bundle(program, sources));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) writeBundles();
