/**
 * The admin console's settings module: a realm's settings, in labelled sections
 * (setting-sections.ts), built from the settings the server answers, so that a setting added
 * later shows; only what changed is sent.
 */
import { ACR_JOURNEYS, acrJourneysControl, acrJourneysOf } from './acr-journeys.js';
import { api } from './api.js';
import { exportSection } from './documents.js';
import { control, copyButton, field, guarded, h, type PropValue, same, say, valueOf } from './dom.js';
import { realmDeletion } from './realms.js';
import { groupSettings, settingLabel } from './setting-sections.js';
import { AUTHORIZATION_TYPES, authorizationTypesControl, authorizationTypesOf } from './authorization-types.js';
import { shownBeside } from './form-errors.js';
import { t } from './i18n.js';

/** Settings that may be null: a rate limit (null: off) is a number, any other a text. */
const isRateLimit = (name: string): boolean => name.startsWith('rate_limit_');
const CHOICES: Record<string, readonly string[] | undefined> = { signing_alg: ['ES256', 'RS256'], profile: ['default', 'fapi2'] };
/** A setting that is a JSON object (acr_journeys): edited as JSON. */
const isObject = (value: unknown): value is object => value !== null && typeof value === 'object' && !Array.isArray(value);

/** transaction_tokens (CONTRACT.md §15): a trust domain and a lifetime; no trust domain: none issued. */
const TRANSACTION_TOKENS = 'transaction_tokens';

function transactionTokensControl(value: unknown): HTMLElement {
  const current: { trust_domain?: string; lifetime?: number } = isObject(value) ? value : {};
  return h(
    'fieldset',
    {},
    h('legend', {}, settingLabel(TRANSACTION_TOKENS)),
    h('small', {}, h('code', {}, TRANSACTION_TOKENS)),
    field(
      t('Trust domain'),
      h('input', { name: TRANSACTION_TOKENS + '.trust_domain', maxlength: 255, spellcheck: 'false', autocomplete: 'off', value: current.trust_domain ?? '' }),
      t('The aud of the realm\'s transaction tokens: a URI or a name, without spaces. Empty: none are issued.'),
    ),
    field(
      t('Lifetime (seconds)'),
      h('input', { name: TRANSACTION_TOKENS + '.lifetime', type: 'number', min: 1, max: 300, step: 1, value: current.lifetime }),
      t('At most 300 (they are short-lived); empty: 60.'),
    ),
  );
}

function readTransactionTokens(form: HTMLFormElement): unknown {
  const trustDomain = valueOf(form, TRANSACTION_TOKENS + '.trust_domain').trim();
  const lifetime = valueOf(form, TRANSACTION_TOKENS + '.lifetime').trim();
  if (trustDomain === '') {
    if (lifetime !== '') throw new Error(t('{setting}: a lifetime needs a trust domain; empty both to issue none.', { setting: TRANSACTION_TOKENS }));
    return null;
  }
  return { trust_domain: trustDomain, ...(lifetime === '' ? {} : { lifetime: Number(lifetime) }) };
}

/** A setting's control, labelled in plain words, its key (as the admin API and exports name it) under it. */
function labelled(name: string, input: HTMLElement, hint: string | null): HTMLElement {
  const key = h('small', {}, h('code', {}, name), hint ? ' · ' + hint : '');
  if (input instanceof HTMLInputElement && input.type === 'checkbox') return h('label', { class: 'check' }, input, h('span', {}, settingLabel(name)), key);
  return h('label', { class: 'field' }, h('span', {}, settingLabel(name)), input, key);
}

function settingControl(name: string, value: unknown, journeys: readonly string[]): HTMLElement {
  if (name === TRANSACTION_TOKENS) return transactionTokensControl(value);
  if (name === ACR_JOURNEYS && isObject(value)) return acrJourneysControl(value as Record<string, unknown>, journeys);
  if (name === AUTHORIZATION_TYPES && isObject(value)) return authorizationTypesControl(value as Record<string, unknown>);
  if (typeof value === 'boolean') return labelled(name, h('input', { type: 'checkbox', name, checked: value }), null);
  if (isObject(value)) return labelled(name, h('textarea', { name, rows: 3, spellcheck: 'false', class: 'code', value: JSON.stringify(value) }), t('a JSON object'));
  const choices = CHOICES[name];
  if (choices) return labelled(name, h('select', { name }, choices.map((choice) => h('option', { value: choice, selected: choice === value }, choice))), null);
  if (Array.isArray(value)) return labelled(name, h('input', { name, value: value.join(', ') }), t('in order, separated by commas'));
  if (typeof value === 'number' || isRateLimit(name)) {
    return labelled(name, h('input', { name, type: 'number', min: 1, step: 1, value: (value ?? '') as PropValue }), isRateLimit(name) ? t('empty: no limit') : null);
  }
  return labelled(name, h('input', { name, value: (value ?? '') as PropValue }), value === null || name.endsWith('_url') ? t('empty: none') : null);
}

/** The form's value of a setting, typed as the current one is. */
function read(form: HTMLFormElement, name: string, current: unknown): unknown {
  if (name === TRANSACTION_TOKENS) return readTransactionTokens(form);
  if (name === ACR_JOURNEYS && isObject(current)) return acrJourneysOf(form);
  if (name === AUTHORIZATION_TYPES && isObject(current)) return authorizationTypesOf(form);
  const input = control(form, name);
  if (typeof current === 'boolean') return (input as HTMLInputElement).checked;
  if (isObject(current)) {
    try {
      return JSON.parse(input.value);
    } catch {
      throw new Error(t('{setting}: not valid JSON.', { setting: name }));
    }
  }
  if (Array.isArray(current)) return input.value.split(',').map((item) => item.trim()).filter(Boolean);
  if (typeof current === 'number' || isRateLimit(name)) return input.value.trim() === '' ? null : Number(input.value);
  return input.value.trim() === '' && (current === null || name.endsWith('_url')) ? null : input.value;
}

export async function settingsView(realm: string, panel: HTMLElement) {
  // The journeys are offered for acr_journeys; one who may not read them types their names.
  const [current, journeys] = await Promise.all([
    api.realm(realm),
    api.journeys(realm).then(({ journeys }) => journeys.map((journey) => journey.name), () => []),
  ]);
  const names = Object.keys(current.settings);
  const form = h(
    'form',
    { class: 'settings', 'aria-label': t('Realm settings') },
    h('p', { class: 'issuer' }, t('Issuer: {issuer}').split('{issuer}')[0], h('code', {}, current.issuer), ' ', copyButton(current.issuer, t('the issuer'))),
    groupSettings(names).map(({ section, names: inSection }) =>
      h(
        'section',
        { class: 'settings-section', id: 'settings-' + section.id, 'aria-labelledby': 'settings-' + section.id + '-title' },
        h('h3', { id: 'settings-' + section.id + '-title' }, section.title),
        h('p', { class: 'help' }, section.help),
        h('div', { class: 'grid' }, inSection.map((name) => settingControl(name, current.settings[name], journeys))),
      ),
    ),
    h('button', { 'data-operation': 'updateRealm', type: 'submit', class: 'primary' }, t('Save settings')),
  );
  form.addEventListener('submit', guarded(shownBeside(form, async () => {
    const changed: Record<string, unknown> = {};
    for (const name of names) {
      const value = read(form, name, current.settings[name]);
      if (!same(value, current.settings[name])) changed[name] = value;
    }
    const saved = Object.keys(changed);
    if (saved.length === 0) return say(t('Nothing changed.'));
    const updated = await api.updateSettings(realm, changed);
    current.settings = updated.settings;
    say(t('Settings saved: {settings}.', { settings: saved.join(', ') }));
  })));
  panel.replaceChildren(form, exportSection(realm), realmDeletion(realm));
}

