/**
 * The admin console's realms module: the realms (list, create) and a realm's settings, edited
 * in a form built from the settings the server answers, so that a setting added later shows.
 */
import { api } from './api.js';
import { exportSection, importForm } from './documents.js';
import { checkbox, control, deleteButton, field, guarded, h, link, type PropValue, same, say, table, valueOf } from './dom.js';

const realmHash = (realm: string, tab: string): string => '#/realms/' + encodeURIComponent(realm) + '/' + tab;

export async function realmsView(view: HTMLElement): Promise<void> {
  const realms = await api.realms();
  const name = h('input', { name: 'name', required: true, maxlength: 63, autocomplete: 'off' });
  const form = h(
    'form',
    { 'aria-label': 'New realm' },
    h('h3', {}, 'New realm'),
    field('Realm name', name, 'Lower-case letters, digits and hyphens; its issuer is {BASE_URL}/oauth2/{name}.'),
    h('button', { 'data-operation': 'createRealm', type: 'submit', class: 'primary' }, 'Create realm'),
  );
  form.addEventListener('submit', guarded(async () => {
    const realm = await api.createRealm(name.value.trim());
    location.hash = realmHash(realm.name, 'settings');
    say('Realm ' + realm.name + ' created.');
  }));
  view.replaceChildren(
    h('h2', {}, 'Realms'),
    table('Realms', ['Realm', 'Issuer', 'Created'], realms.map((realm) => [link(realmHash(realm.name, 'settings'), realm.name), realm.issuer, realm.created_at])),
    form,
    importForm(() => realmsView(view)),
  );
}

/** Settings that may be null: a rate limit (null: off) is a number, any other a text. */
const isRateLimit = (name: string): boolean => name.startsWith('rate_limit_');
const CHOICES: Record<string, readonly string[] | undefined> = { signing_alg: ['ES256', 'RS256'] };
/** A setting that is a JSON object (acr_journeys): edited as JSON. */
const isObject = (value: unknown): value is object => value !== null && typeof value === 'object' && !Array.isArray(value);

/** transaction_tokens (CONTRACT.md §15): a trust domain and a lifetime; no trust domain: none issued. */
const TRANSACTION_TOKENS = 'transaction_tokens';

function transactionTokensControl(value: unknown): HTMLElement {
  const current: { trust_domain?: string; lifetime?: number } = isObject(value) ? value : {};
  return h(
    'fieldset',
    {},
    h('legend', {}, TRANSACTION_TOKENS),
    field(
      'Trust domain',
      h('input', { name: TRANSACTION_TOKENS + '.trust_domain', maxlength: 255, spellcheck: 'false', autocomplete: 'off', value: current.trust_domain ?? '' }),
      'The aud of the realm\'s transaction tokens: a URI or a name, without spaces. Empty: none are issued.',
    ),
    field(
      'Lifetime (seconds)',
      h('input', { name: TRANSACTION_TOKENS + '.lifetime', type: 'number', min: 1, max: 300, step: 1, value: current.lifetime }),
      'At most 300 (they are short-lived); empty: 60.',
    ),
  );
}

function readTransactionTokens(form: HTMLFormElement): unknown {
  const trustDomain = valueOf(form, TRANSACTION_TOKENS + '.trust_domain').trim();
  const lifetime = valueOf(form, TRANSACTION_TOKENS + '.lifetime').trim();
  if (trustDomain === '') {
    if (lifetime !== '') throw new Error(TRANSACTION_TOKENS + ': a lifetime needs a trust domain; empty both to issue none.');
    return null;
  }
  return { trust_domain: trustDomain, ...(lifetime === '' ? {} : { lifetime: Number(lifetime) }) };
}

function settingControl(name: string, value: unknown): HTMLElement {
  if (name === TRANSACTION_TOKENS) return transactionTokensControl(value);
  if (typeof value === 'boolean') return checkbox(name, name, value);
  if (isObject(value)) return field(name, h('textarea', { name, rows: 3, spellcheck: 'false', class: 'code', value: JSON.stringify(value) }), 'A JSON object.');
  const choices = CHOICES[name];
  if (choices) return field(name, h('select', { name }, choices.map((choice) => h('option', { value: choice, selected: choice === value }, choice))));
  if (Array.isArray(value)) return field(name, h('input', { name, value: value.join(', ') }), 'In order, separated by commas.');
  if (typeof value === 'number' || isRateLimit(name)) {
    return field(name, h('input', { name, type: 'number', min: 1, step: 1, value: (value ?? '') as PropValue }), isRateLimit(name) ? 'Per minute; empty: no limit.' : null);
  }
  return field(name, h('input', { name, value: (value ?? '') as PropValue }), value === null || name.endsWith('_url') ? 'Empty: none.' : null);
}

/** The form's value of a setting, typed as the current one is. */
function read(form: HTMLFormElement, name: string, current: unknown): unknown {
  if (name === TRANSACTION_TOKENS) return readTransactionTokens(form);
  const input = control(form, name);
  if (typeof current === 'boolean') return (input as HTMLInputElement).checked;
  if (isObject(current)) {
    try {
      return JSON.parse(input.value);
    } catch {
      throw new Error(name + ': not valid JSON.');
    }
  }
  if (Array.isArray(current)) return input.value.split(',').map((item) => item.trim()).filter(Boolean);
  if (typeof current === 'number' || isRateLimit(name)) return input.value.trim() === '' ? null : Number(input.value);
  return input.value.trim() === '' && (current === null || name.endsWith('_url')) ? null : input.value;
}

export async function settingsView(realm: string, panel: HTMLElement) {
  const current = await api.realm(realm);
  const names = Object.keys(current.settings);
  const form = h(
    'form',
    { class: 'settings', 'aria-label': 'Realm settings' },
    h('p', {}, 'Issuer: ', h('code', {}, current.issuer)),
    h('div', { class: 'grid' }, names.map((name) => settingControl(name, current.settings[name]))),
    h('button', { 'data-operation': 'updateRealm', type: 'submit', class: 'primary' }, 'Save settings'),
  );
  form.addEventListener('submit', guarded(async () => {
    const changed: Record<string, unknown> = {};
    for (const name of names) {
      const value = read(form, name, current.settings[name]);
      if (!same(value, current.settings[name])) changed[name] = value;
    }
    const saved = Object.keys(changed);
    if (saved.length === 0) return say('Nothing changed.');
    const updated = await api.updateSettings(realm, changed);
    current.settings = updated.settings;
    say('Settings saved: ' + saved.join(', ') + '.');
  }));
  panel.replaceChildren(form, exportSection(realm), deletion(realm));
}

/** The realm's deletion, asked twice; the root realm always exists. */
function deletion(realm: string): HTMLElement {
  if (realm === 'root') return h('p', { class: 'note' }, 'The root realm always exists: it cannot be deleted.');
  return h(
    'section',
    { class: 'danger-zone', 'aria-label': 'Delete the realm' },
    h('h3', {}, 'Delete the realm'),
    h('p', {}, 'Its clients, people, scopes, journeys, providers, keys and tokens go with it, and its issuer stops answering.'),
    deleteButton(realm, 'Delete the realm ' + realm + ' and everything in it? This cannot be undone.', async () => {
      await api.deleteRealm(realm);
      location.hash = '#/realms';
      say('Realm ' + realm + ' deleted.');
    }, 'deleteRealm'),
  );
}
