/**
 * The admin console's journey-editor module: the journey being edited, drawn as node cards in
 * walk order (each with its name, type, fields and where each outcome leads), the start node,
 * a way to add and remove nodes, and its JSON as the advanced view. Changing a field writes
 * the JSON again; typing JSON the editor can draw redraws the cards, and JSON it cannot draw
 * says why and leaves the cards as they were (and keeps the journey from being sent).
 */
import { field, h, say } from './dom.js';
import { t } from './i18n.js';
import { type EditedJourney, NODE_TYPES, type NodeType, firstGap, inWalkOrder, isNodeType, newNameProblem, outcomesOf, readJourney, retyped, withNode, withNodeRenamed, withoutNode } from './journey-graph.js';
import { type Changed, nodeFields, targetSelect } from './journey-node-fields.js';
import type { Journey } from './records.js';

const TYPE_NAMES: Readonly<Record<NodeType, () => string>> = {
  password: () => t('password: the person\'s password'),
  otp: () => t('otp: a one-time code from an authenticator app'),
  passkey: () => t('passkey: a passkey'),
  choice: () => t('choice: the person chooses a way'),
  identity_provider: () => t('identity_provider: another OpenID provider'),
  register: () => t('register: a new person registers'),
  email_verification: () => t('email_verification: the person confirms their email address'),
  risk: () => t('risk: a sign-in from an unknown address or browser is "high"'),
  condition: () => t('condition: a question about the person or the application'),
  done: () => t('done: signed in'),
  deny: () => t('deny: refused'),
};

const typeOptions = (chosen: string) => [
  ...NODE_TYPES.map((type) => h('option', { value: type, selected: type === chosen }, TYPE_NAMES[type]())),
  isNodeType(chosen) ? null : h('option', { value: chosen, selected: true }, chosen),
];

export interface JourneyEditor {
  readonly element: HTMLElement;
  /** Edits this journey from now on (a copy: the one given is not changed). */
  load(journey: Journey): void;
  /** The journey to send; an Error saying what to do first while the JSON has a mistake or an outcome leads nowhere. */
  journey(): EditedJourney;
  /** Shows the server's refusal in the card of the node it names (`node "…": …`), if it names one of them. */
  refused(message: string): void;
}

export function journeyEditor(): JourneyEditor {
  let journey: EditedJourney = { start: '', nodes: {} };
  let jsonProblem: string | undefined;
  let refusal: { node: string; message: string } | undefined;
  /** The node whose rename the operator opened, if any. */
  let renaming: string | undefined;

  const startArea = h('div', { class: 'journey-start' });
  const cards = h('div', { class: 'journey-nodes' });
  const json = h('textarea', { rows: 14, spellcheck: 'false', class: 'code', 'data-key': 'json' });
  const jsonStatus = h('p', { class: 'json-problem', 'aria-live': 'polite' });

  function writeJson(): void {
    json.value = JSON.stringify(journey, null, 2);
    jsonProblem = undefined;
    jsonStatus.replaceChildren();
  }

  const changed: Changed = (redraw) => {
    refusal = undefined;
    writeJson();
    if (redraw) draw();
  };

  function card(name: string): HTMLElement {
    const node = journey.nodes[name]!;
    const isStart = journey.start === name;
    const typeSelect = h(
      'select',
      {
        'data-key': name + '/type',
        onchange: (event: Event) => {
          const type = (event.currentTarget as HTMLSelectElement).value;
          if (isNodeType(type)) journey.nodes[name] = retyped(node, type);
          changed(true);
        },
      },
      typeOptions(node.type),
    );
    const outcomes = node.type === 'choice' ? [] : outcomesOf(node);
    return h(
      'section',
      { class: isStart ? 'journey-node start' : 'journey-node', 'aria-label': t('Node {name}', { name }) },
      h('h4', {}, h('code', {}, name), isStart ? h('span', { class: 'badge' }, t('Starts here')) : null),
      field(t('Node type'), typeSelect),
      nodeFields(name, node, journey, changed),
      outcomes.length === 0
        ? null
        : h(
            'fieldset',
            { class: 'journey-outcomes' },
            h('legend', {}, t('Where its outcomes lead')),
            outcomes.map(([outcome, target]) =>
              targetSelect(journey, {
                label: t('"{outcome}" leads to', { outcome }),
                value: target,
                key: name + '/next/' + outcome,
                onchange: (value) => ((node.next = { ...node.next, [outcome]: value }), changed(true)),
              }),
            ),
          ),
      refusal?.node === name ? h('p', { class: 'node-problem' }, t('The server refused this node: {reason}', { reason: refusal.message })) : null,
      renameControls(name),
      h('button', { type: 'button', 'data-key': name + '/remove', 'aria-label': t('Remove the node {name}', { name }), onclick: () => remove(name) }, t('Remove node')),
    );
  }

  const focusKey = (key: string) => [...editor.querySelectorAll<HTMLElement>('[data-key]')].find((control) => control.getAttribute('data-key') === key)?.focus();

  /** A Rename button; once pressed, the new name with Rename and Keep the name (Enter and Escape). Every reference follows the name. */
  function renameControls(name: string): HTMLElement {
    const open = () => {
      renaming = name;
      draw();
      focusKey(name + '/new-name');
    };
    if (renaming !== name) return h('button', { type: 'button', 'data-key': name + '/rename', 'aria-label': t('Rename the node {name}', { name }), onclick: open }, t('Rename'));
    const input = h('input', { 'data-key': name + '/new-name', maxlength: 64, spellcheck: 'false', autocomplete: 'off', value: name });
    const problem = h('p', { class: 'journey-problem', role: 'alert' });
    const close = (focused: string) => {
      renaming = undefined;
      draw();
      focusKey(focused + '/rename');
    };
    const rename = () => {
      const to = input.value.trim();
      if (to === name) return close(name);
      const refused = newNameProblem(journey, to);
      if (refused !== undefined) {
        problem.textContent = refused;
        return input.focus();
      }
      journey = withNodeRenamed(journey, name, to);
      changed(false);
      close(to);
    };
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === 'Escape') event.preventDefault();
      if (event.key === 'Enter') rename();
      if (event.key === 'Escape') close(name);
    });
    return h(
      'div',
      { class: 'journey-rename', role: 'group', 'aria-label': t('Rename the node {name}', { name }) },
      field(t('New name'), input, t('Every outcome that leads to it follows the new name.')),
      h('button', { type: 'button', onclick: rename }, t('Rename')),
      h('button', { type: 'button', onclick: () => close(name) }, t('Keep the name')),
      problem,
    );
  }

  function remove(name: string): void {
    journey = withoutNode(journey, name);
    changed(true);
    say(t('Node {name} removed: the outcomes that led to it are unset.', { name }));
    (editor.querySelector<HTMLElement>('select[aria-invalid=true]') ?? addName).focus();
  }

  /** Draws the start and the cards again, the focus kept on the control that had it. */
  function draw(): void {
    const focused = document.activeElement?.getAttribute('data-key');
    startArea.replaceChildren(
      targetSelect(journey, { label: t('Starts at'), value: journey.start, key: 'start', ends: false, onchange: (value) => ((journey.start = value), changed(true)) }),
    );
    const names = inWalkOrder(journey);
    cards.replaceChildren(...(names.length === 0 ? [h('p', { class: 'note' }, t('No nodes yet: add the first one below.'))] : names.map(card)));
    if (focused) focusKey(focused);
  }

  const addName = h('input', { maxlength: 64, spellcheck: 'false', autocomplete: 'off' });
  const addType = h('select', {}, typeOptions('password'));
  const addProblem = h('p', { class: 'journey-problem', role: 'alert' });
  function add(): void {
    const name = addName.value.trim();
    const problem = newNameProblem(journey, name);
    addProblem.textContent = problem ?? '';
    if (problem !== undefined) return addName.focus();
    journey = withNode(journey, name, addType.value as NodeType);
    addName.value = '';
    changed(true);
    focusKey(name + '/type');
  }
  // Enter in the name adds the node, rather than sending the journey's form.
  addName.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      add();
    }
  });

  json.addEventListener('input', () => {
    try {
      journey = readJourney(json.value);
    } catch (error) {
      jsonProblem = (error as Error).message;
      jsonStatus.textContent = t('The fields are unchanged: {reason}', { reason: jsonProblem });
      return;
    }
    jsonProblem = undefined;
    refusal = undefined;
    jsonStatus.replaceChildren();
    draw();
  });

  const editor = h(
    'div',
    { class: 'journey-editor' },
    startArea,
    cards,
    h(
      'fieldset',
      { class: 'journey-add' },
      h('legend', {}, t('Add a node')),
      field(t('Node name'), addName, t('Letters, digits, ".", "_" and "-".')),
      field(t('Its type'), addType),
      h('button', { type: 'button', onclick: add }, t('Add the node')),
      addProblem,
    ),
    h(
      'details',
      { class: 'journey-json' },
      h('summary', {}, t('JSON (advanced)')),
      field(t('Journey JSON'), json, t('An object with "start" and "nodes" (docs/sign-in.md, Journeys). Valid JSON redraws the nodes above.')),
      jsonStatus,
    ),
  );

  return {
    element: editor,
    load(next) {
      journey = structuredClone(next) as EditedJourney;
      renaming = undefined;
      addProblem.textContent = '';
      changed(true);
    },
    journey() {
      if (jsonProblem !== undefined) throw new Error(t('The JSON (advanced) has a mistake: {reason} Correct it before saving.', { reason: jsonProblem }));
      const gap = firstGap(journey);
      if (gap) {
        editor.querySelector<HTMLElement>('select[aria-invalid=true]')?.focus();
        throw new Error(gap.message);
      }
      return journey;
    },
    refused(message) {
      const named = /^node "([^"]+)"/.exec(message)?.[1];
      refusal = named !== undefined && Object.hasOwn(journey.nodes, named) ? { node: named, message } : undefined;
      draw();
    },
  };
}
