import { createHash } from 'node:crypto';
import { API_JS } from './browser/api.js';
import { CLIENTS_JS } from './browser/clients.js';
import { DOCUMENTS_JS } from './browser/documents.js';
import { DOM_JS } from './browser/dom.js';
import { EVENTS_JS } from './browser/events.js';
import { TRUSTED_ISSUERS_JS } from './browser/issuers.js';
import { JOURNEYS_JS } from './browser/journeys.js';
import { KEYS_JS } from './browser/keys.js';
import { MAIN_JS } from './browser/main.js';
import { IDENTITY_PROVIDERS_JS } from './browser/providers.js';
import { REALMS_JS } from './browser/realms.js';
import { INITIAL_ACCESS_TOKENS_JS } from './browser/registration.js';
import { RESOURCES_JS } from './browser/resources.js';
import { ROLES_JS } from './browser/roles.js';
import { SCOPES_JS } from './browser/scopes.js';
import { CONSOLE_CSS } from './browser/style.js';
import { USERS_JS } from './browser/users.js';

/**
 * A file of the console. The files are kept as text in TypeScript modules (as the pages'
 * scripts are, src/pages/assets/) so that they ship inside dist/ with the code.
 */
export interface ConsoleAsset {
  readonly name: string;
  readonly contentType: string;
  readonly body: Buffer;
}

const script = (name: string, text: string): ConsoleAsset => ({ name, contentType: 'text/javascript; charset=utf-8', body: Buffer.from(text, 'utf8') });

/** The tab's icon: a browser asks for one, and would log the 404 of /favicon.ico. */
const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2557d6"/><path d="M5 12V4h3.5a2.5 2.5 0 0 1 0 5H5m3.5 0L11 12" fill="none" stroke="#fff" stroke-width="1.6"/></svg>';

export const CONSOLE_ASSETS: readonly ConsoleAsset[] = [
  { name: 'icon.svg', contentType: 'image/svg+xml', body: Buffer.from(ICON, 'utf8') },
  { name: 'console.css', contentType: 'text/css; charset=utf-8', body: Buffer.from(CONSOLE_CSS, 'utf8') },
  script('main.js', MAIN_JS),
  script('api.js', API_JS),
  script('dom.js', DOM_JS),
  script('realms.js', REALMS_JS),
  script('documents.js', DOCUMENTS_JS),
  script('clients.js', CLIENTS_JS),
  script('users.js', USERS_JS),
  script('scopes.js', SCOPES_JS),
  script('roles.js', ROLES_JS),
  script('resources.js', RESOURCES_JS),
  script('journeys.js', JOURNEYS_JS),
  script('providers.js', IDENTITY_PROVIDERS_JS),
  script('issuers.js', TRUSTED_ISSUERS_JS),
  script('registration.js', INITIAL_ACCESS_TOKENS_JS),
  script('keys.js', KEYS_JS),
  script('events.js', EVENTS_JS),
];

/**
 * A digest of every file: the files are served below `/admin/console/{version}/`, so that a
 * browser may keep them a year and still never runs a stale module beside a new one (the
 * modules import each other by relative URLs, which stay within one version).
 */
export const CONSOLE_VERSION = createHash('sha256')
  .update(CONSOLE_ASSETS.map((asset) => `${asset.name}\n${asset.body.toString('base64')}`).join('\n'))
  .digest('hex')
  .slice(0, 16);
