import { createHash } from 'node:crypto';
import { BROWSER_PROGRAMS, browserBundle } from '../../http/browser-bundle.js';
import { CONSOLE_CSS } from './style.js';

/** A file of the console. */
export interface ConsoleAsset {
  readonly name: string;
  readonly contentType: string;
  readonly body: Buffer;
}

/** The tab's icon: a browser asks for one, and would log the 404 of /favicon.ico. */
const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2557d6"/><path d="M5 12V4h3.5a2.5 2.5 0 0 1 0 5H5m3.5 0L11 12" fill="none" stroke="#fff" stroke-width="1.6"/></svg>';

/**
 * The console's script is its TypeScript modules (./browser/) bundled into one ES module
 * (src/http/browser-bundle.ts): built with the server, or bundled at start from the sources.
 */
export const CONSOLE_ASSETS: readonly ConsoleAsset[] = [
  { name: 'icon.svg', contentType: 'image/svg+xml', body: Buffer.from(ICON, 'utf8') },
  { name: 'console.css', contentType: 'text/css; charset=utf-8', body: Buffer.from(CONSOLE_CSS, 'utf8') },
  { name: 'main.js', contentType: 'text/javascript; charset=utf-8', body: browserBundle(BROWSER_PROGRAMS.adminConsole) },
];

/**
 * A digest of every file: the files are served below `/admin/console/{version}/`, so that a
 * browser may keep them a year and still never runs a stale script beside a new stylesheet.
 */
export const CONSOLE_VERSION = createHash('sha256')
  .update(CONSOLE_ASSETS.map((asset) => `${asset.name}\n${asset.body.toString('base64')}`).join('\n'))
  .digest('hex')
  .slice(0, 16);
