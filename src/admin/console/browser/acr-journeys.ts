/**
 * The admin console's acr-journeys module: the realm setting acr_journeys (which journey runs
 * when an application asks for an acr value) as rows of an acr value and a journey, the
 * realm's journeys offered as the journey's choices.
 */
import { field, h, sentence } from './dom.js';
import { t } from './i18n.js';

export const ACR_JOURNEYS = 'acr_journeys';

function renumber(list: HTMLElement): void {
  list.querySelectorAll<HTMLElement>('.acr-journey').forEach((row, index) => {
    row.setAttribute('aria-label', t('acr value {number}', { number: index + 1 }));
    row.querySelector('button')?.setAttribute('aria-label', t('Remove acr value {number}', { number: index + 1 }));
  });
}

function acrRow(list: HTMLElement, acr = '', journey = ''): HTMLElement {
  const row: HTMLElement = h(
    'div',
    { class: 'rows acr-journey', role: 'group' },
    field(t('acr value'), h('input', { name: 'acr', maxlength: 255, spellcheck: 'false', autocomplete: 'off', value: acr })),
    field(t('Journey'), h('input', { name: 'acr_journey', list: 'journey-names', maxlength: 64, spellcheck: 'false', autocomplete: 'off', value: journey })),
    h('span'),
    h('button', { type: 'button', onclick: () => (row.remove(), renumber(list)) }, t('Remove')),
  );
  return row;
}

/** The rows, with the realm's journeys to choose from. */
export function acrJourneysControl(value: Record<string, unknown>, journeys: readonly string[]): HTMLElement {
  const list = h('div', { class: 'acr-journeys' });
  list.append(...Object.entries(value).map(([acr, journey]) => acrRow(list, acr, String(journey))));
  renumber(list);
  return h(
    'fieldset',
    { class: 'wide' },
    h('legend', {}, t('Journeys by acr value')),
    h('small', {}, sentence(t('{setting} · an application that asks for the acr value gets the journey; none: the realm\'s sign-in methods'), { setting: h('code', {}, ACR_JOURNEYS) })),
    h('datalist', { id: 'journey-names' }, journeys.map((name) => h('option', { value: name }))),
    list,
    h('button', {
      type: 'button',
      onclick: () => {
        const row = acrRow(list);
        list.append(row);
        renumber(list);
        row.querySelector('input')?.focus();
      },
    }, t('Add an acr value')),
  );
}

/** What the rows say, as the setting is: a row left empty is none, a half-filled one a mistake. */
export function acrJourneysOf(form: HTMLFormElement): Record<string, string> {
  const value: Record<string, string> = {};
  form.querySelectorAll<HTMLElement>('.acr-journey').forEach((row, index) => {
    const text = (name: string) => row.querySelector<HTMLInputElement>('input[name="' + name + '"]')!.value.trim();
    const [acr, journey] = [text('acr'), text('acr_journey')];
    if (acr === '' && journey === '') return;
    if (acr === '' || journey === '') throw new Error(t('acr value {number}: give both the acr value and its journey.', { number: index + 1 }));
    value[acr] = journey;
  });
  return value;
}
