/**
 * The admin console's journey-node-fields module: the controls of one node card of the journey
 * editor: where an outcome leads (a select of the journey's nodes and ends), and the fields a
 * node's type takes: a password's passkey node, a passkey's `enrol`, a choice's options, an
 * identity provider's alias, a condition's `if` and its `client_in` list. Each control changes
 * the node in place and tells the editor, which writes the JSON again (and draws the cards
 * again when what it shows may have changed). Every control carries a `data-key`, by which the
 * editor gives the focus back after drawing.
 */
import { checkbox, field, h, lines } from './dom.js';
import { t } from './i18n.js';
import { CONDITIONS, ENDS, type EditedJourney, type EditedNode, leadsSomewhere } from './journey-graph.js';

/** Tells the editor the journey changed; `redraw`: what the cards show may have changed too. */
export type Changed = (redraw: boolean) => void;

const MAX_OPTIONS = 10;

const END_NAMES: Readonly<Record<string, () => string>> = {
  done: () => t('done (signed in)'),
  deny: () => t('deny (refused)'),
};

const CONDITION_NAMES: Readonly<Record<(typeof CONDITIONS)[number], () => string>> = {
  has_passkey: () => t('has_passkey: the person has a passkey'),
  has_otp: () => t('has_otp: the person has an authenticator app'),
  email_verified: () => t('email_verified: the person confirmed their email address'),
  client_in: () => t('client_in: the application is one of a list'),
};

/**
 * A select of where something leads: unset, a node of the journey, or (with `ends`) an end
 * not declared as a node. A name that is none of these stays shown, said to be no node; an
 * unset or unknown choice is marked invalid, with a visible note.
 */
export function targetSelect(
  journey: EditedJourney,
  { label, value, key, ends = true, onchange }: { label: string; value: string; key: string; ends?: boolean; onchange: (value: string) => void },
): HTMLElement {
  const names = Object.keys(journey.nodes);
  const endNames = ends ? ENDS.filter((end) => !names.includes(end)) : [];
  const known = value === '' || names.includes(value) || (endNames as string[]).includes(value);
  const valid = ends ? leadsSomewhere(journey, value) : Object.hasOwn(journey.nodes, value);
  const select = h(
    'select',
    { 'data-key': key, 'aria-invalid': valid ? 'false' : 'true', onchange: (event: Event) => onchange((event.currentTarget as HTMLSelectElement).value) },
    h('option', { value: '', selected: value === '' }, t('(not set)')),
    names.map((name) => h('option', { value: name, selected: name === value }, name)),
    endNames.map((end) => h('option', { value: end, selected: end === value }, END_NAMES[end]!())),
    known ? null : h('option', { value, selected: true }, t('{name} (no such node)', { name: value })),
  );
  const note = valid ? null : value === '' ? t('Not set: choose where it leads.') : t('It names no node: choose where it leads.');
  return field(label, select, note);
}

/** A password node's passkey node, whose passwordless sign-in its page offers beside the password form. */
function passwordFields(name: string, node: EditedNode, journey: EditedJourney, changed: Changed): HTMLElement {
  const passkeys = Object.keys(journey.nodes).filter((other) => journey.nodes[other]!.type === 'passkey');
  const value = node.passkey ?? '';
  const select = h(
    'select',
    {
      'data-key': name + '/passkey',
      onchange: (event: Event) => {
        const chosen = (event.currentTarget as HTMLSelectElement).value;
        if (chosen === '') delete node.passkey;
        else node.passkey = chosen;
        changed(false);
      },
    },
    h('option', { value: '', selected: value === '' }, t('No passkey node')),
    passkeys.map((passkey) => h('option', { value: passkey, selected: passkey === value }, passkey)),
    value === '' || passkeys.includes(value) ? null : h('option', { value, selected: true }, t('{name} (no passkey node)', { name: value })),
  );
  return field(t('Passkey offered beside the password'), select, t('The passkey node whose sign-in without a password the page offers; passing it follows that node\'s "success".'));
}

function passkeyFields(name: string, node: EditedNode, changed: Changed): HTMLElement {
  const box = checkbox(t('Enrol one when the person has none'), 'enrol', node.enrol === true, t('Instead of taking "unavailable", a person without a passkey registers one here.'));
  const input = box.querySelector('input')!;
  input.setAttribute('data-key', name + '/enrol');
  input.addEventListener('change', () => {
    if (input.checked) node.enrol = true;
    else delete node.enrol;
    changed(false);
  });
  return box;
}

function identityProviderFields(name: string, node: EditedNode, changed: Changed): HTMLElement {
  const input = h('input', {
    'data-key': name + '/provider',
    maxlength: 64,
    spellcheck: 'false',
    autocomplete: 'off',
    value: node.provider ?? '',
    oninput: (event: Event) => ((node.provider = (event.currentTarget as HTMLInputElement).value.trim()), changed(false)),
  });
  return field(t('Identity provider alias'), input, t('The alias of one of the realm\'s identity providers.'));
}

function conditionFields(name: string, node: EditedNode, changed: Changed): HTMLElement[] {
  const asked = typeof node.if === 'object' ? 'client_in' : (node.if ?? '');
  const select = h(
    'select',
    {
      'data-key': name + '/if',
      onchange: (event: Event) => {
        const chosen = (event.currentTarget as HTMLSelectElement).value;
        node.if = chosen === 'client_in' ? { client_in: [] } : chosen;
        changed(true);
      },
    },
    CONDITIONS.map((condition) => h('option', { value: condition, selected: condition === asked }, CONDITION_NAMES[condition]())),
    (CONDITIONS as readonly string[]).includes(asked) ? null : h('option', { value: asked, selected: true }, asked),
  );
  const fields = [field(t('What it asks ("if")'), select)];
  if (typeof node.if === 'object') {
    const clients = h('textarea', {
      'data-key': name + '/client_in',
      rows: 3,
      spellcheck: 'false',
      class: 'code',
      value: node.if.client_in.join('\n'),
      oninput: (event: Event) => ((node.if = { client_in: lines((event.currentTarget as HTMLTextAreaElement).value) }), changed(false)),
    });
    fields.push(field(t('Client IDs ("client_in")'), clients, t('One client_id a line: "true" when the person signs in to one of them.')));
  }
  return fields;
}

/** A choice's options: each a label the person sees and where it leads; 1 to 10 of them. */
function choiceFields(name: string, node: EditedNode, journey: EditedJourney, changed: Changed): HTMLElement {
  const options = (node.options ??= []);
  return h(
    'fieldset',
    { class: 'journey-options' },
    h('legend', {}, t('Options the person chooses from')),
    options.map((option, index) => {
      const number = index + 1;
      const label = h('input', {
        'data-key': name + '/option/' + index + '/label',
        maxlength: 100,
        autocomplete: 'off',
        value: option.label,
        oninput: (event: Event) => ((option.label = (event.currentTarget as HTMLInputElement).value), changed(false)),
      });
      return h(
        'div',
        { class: 'journey-option', role: 'group', 'aria-label': t('Option {number}', { number }) },
        field(t('Label of option {number}', { number }), label),
        targetSelect(journey, { label: t('Option {number} leads to', { number }), value: option.next, key: name + '/option/' + index, onchange: (value) => ((option.next = value), changed(true)) }),
        options.length > 1
          ? h('button', { type: 'button', 'data-key': name + '/option/' + index + '/remove', onclick: () => (options.splice(index, 1), changed(true)) }, t('Remove option {number}', { number }))
          : null,
      );
    }),
    options.length < MAX_OPTIONS
      ? h('button', { type: 'button', 'data-key': name + '/option/add', onclick: () => (options.push({ label: '', next: '' }), changed(true)) }, t('Add an option'))
      : null,
  );
}

/** The fields the node's type takes beyond its outcomes; none for most. */
export function nodeFields(name: string, node: EditedNode, journey: EditedJourney, changed: Changed): HTMLElement[] {
  if (node.type === 'password') return [passwordFields(name, node, journey, changed)];
  if (node.type === 'passkey') return [passkeyFields(name, node, changed)];
  if (node.type === 'identity_provider') return [identityProviderFields(name, node, changed)];
  if (node.type === 'condition') return conditionFields(name, node, changed);
  if (node.type === 'choice') return [choiceFields(name, node, journey, changed)];
  return [];
}
