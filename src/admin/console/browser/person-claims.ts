/**
 * The admin console's person-claims module: a person's claims as fields (the OpenID Connect
 * standard claims an operator sets most), and the rest as JSON in an advanced view, shared by
 * the new-user and the person's forms.
 */
import { checkbox, field, h, isChecked, jsonObject, valueOf } from './dom.js';
import { t } from './i18n.js';

/** Standard claims (OpenID Connect Core §5.1) that are text, with their names in plain words (in the console's language when drawn). */
const TEXT_CLAIMS: readonly (readonly [claim: string, label: () => string, type: string])[] = [
  ['name', () => t('Full name'), 'text'],
  ['given_name', () => t('Given name'), 'text'],
  ['family_name', () => t('Family name'), 'text'],
  ['email', () => t('Email'), 'email'],
  ['phone_number', () => t('Phone number'), 'tel'],
  ['locale', () => t('Language (a tag such as de or fr-CA)'), 'text'],
];
const FLAG_CLAIMS: readonly (readonly [claim: string, label: () => string])[] = [
  ['email_verified', () => t('Email verified')],
  ['phone_number_verified', () => t('Phone number verified')],
];

const OTHER = 'other_claims';

/** Whether a claim of that value is shown in a field of its own (a text claim holding text, a flag holding true or false). */
function hasField(claim: string, value: unknown): boolean {
  if (TEXT_CLAIMS.some(([name]) => name === claim)) return typeof value === 'string';
  if (FLAG_CLAIMS.some(([name]) => name === claim)) return typeof value === 'boolean';
  return false;
}

/** The fields, filled with the person's claims; the claims no field shows, as JSON under "Other claims". */
export function claimFields(claims: Record<string, unknown>): HTMLElement {
  const others = Object.fromEntries(Object.entries(claims).filter(([claim, value]) => !hasField(claim, value)));
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return h(
    'div',
    { class: 'claim-fields' },
    h(
      'div',
      { class: 'grid' },
      TEXT_CLAIMS.map(([claim, label, type]) =>
        field(label(), h('input', { name: 'claim:' + claim, type, autocomplete: 'off', spellcheck: 'false', value: text(claims[claim]) })),
      ),
    ),
    FLAG_CLAIMS.map(([claim, label]) => checkbox(label(), 'claim:' + claim, claims[claim] === true)),
    h(
      'details',
      { open: Object.keys(others).length > 0 },
      h('summary', {}, t('Other claims (advanced)')),
      field(
        t('Other claims (JSON)'),
        h('textarea', { name: OTHER, rows: 4, spellcheck: 'false', class: 'code', value: Object.keys(others).length > 0 ? JSON.stringify(others, null, 2) : '' }),
        t('A JSON object of any other claims, e.g. {example}. A claim taken out is removed.', { example: '{"department": "Sales"}' }),
      ),
    ),
  );
}

/**
 * The claims the fields say: an empty field is no claim; a flag unticked is false where the
 * person had the claim, and absent otherwise. A claim given both a field and JSON is refused.
 */
export function claimsOf(form: HTMLFormElement, current: Record<string, unknown> = {}): Record<string, unknown> {
  const wanted: Record<string, unknown> = {};
  for (const [claim] of TEXT_CLAIMS) {
    const value = valueOf(form, 'claim:' + claim).trim();
    if (value !== '') wanted[claim] = value;
  }
  for (const [claim] of FLAG_CLAIMS) {
    if (isChecked(form, 'claim:' + claim)) wanted[claim] = true;
    else if (Object.hasOwn(current, claim)) wanted[claim] = false;
  }
  const others = jsonObject(valueOf(form, OTHER), t('Other claims')) ?? {};
  for (const [claim, value] of Object.entries(others)) {
    if (Object.hasOwn(wanted, claim) && wanted[claim] !== false) throw new Error(t('Other claims: {claim} has a field of its own above; set it there.', { claim }));
    wanted[claim] = value;
  }
  return wanted;
}
