/**
 * The admin console's journeys module: a realm's authentication journeys (CONTRACT.md §8),
 * each shown as its nodes with where each outcome leads; a JSON editor to store one (the
 * server judges it and names the node it refuses); deletion.
 */
import { api } from './api.js';
import type { Journey, JourneyNode, NamedJourney } from './records.js';
import { deleteButton, field, guarded, h, say, table } from './dom.js';

const EXAMPLE: Journey = {
  start: 'pw',
  nodes: {
    pw: { type: 'password', next: { success: 'otp' } },
    otp: { type: 'otp', next: { success: 'done' } },
  },
};

/** Where each outcome of a node leads: [outcome, target] pairs; a choice's outcomes are its labels. */
function outcomes(node: JourneyNode): [outcome: string, target: string][] {
  if (node.type === 'choice') return (node.options ?? []).map((option): [string, string] => [option.label, option.next]);
  return Object.entries(node.next ?? {});
}

/** The nodes in the order a person meets them: the start, then each next one; any unreachable last. */
function inWalkOrder(journey: Journey): string[] {
  const names = Object.keys(journey.nodes);
  const order: string[] = [];
  const queue = [journey.start];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (order.includes(name) || !Object.hasOwn(journey.nodes, name)) continue;
    order.push(name);
    queue.push(...outcomes(journey.nodes[name]!).map(([, target]) => target));
  }
  return [...order, ...names.filter((name) => !order.includes(name))];
}

/** The type, with what a node asks beyond it. */
function typeOf(node: JourneyNode): string {
  if (node.type === 'condition') return 'condition: ' + (typeof node.if === 'string' ? node.if : 'client_in ' + (node.if as { client_in: string[] }).client_in.join(', '));
  if (node.type === 'passkey' && node.enrol) return 'passkey (enrols one)';
  return node.type;
}

/** The journey as JSON the editor takes: an object, or the reason it is not one. */
function parsedJourney(text: string): object {
  let journey: unknown;
  try {
    journey = JSON.parse(text);
  } catch (error) {
    throw new Error('The journey is not valid JSON: ' + (error as Error).message);
  }
  if (journey === null || typeof journey !== 'object' || Array.isArray(journey)) throw new Error('The journey must be a JSON object with "start" and "nodes".');
  return journey;
}

/** The nodes in walk order, each with its type and where each outcome leads. */
const nodesTable = (caption: string, journey: Journey) =>
  table(
    caption,
    ['Node', 'Type', 'Outcomes'],
    inWalkOrder(journey).map((node) => [
      h('code', {}, node),
      typeOf(journey.nodes[node]!),
      outcomes(journey.nodes[node]!).map(([outcome, target]) => outcome + ' → ' + target).join('\n'),
    ]),
  );

/** The journey the JSON being typed describes, drawn as its nodes; or what keeps it from being one yet. */
function preview(text: string): HTMLElement {
  try {
    const journey = parsedJourney(text) as Journey;
    if (typeof journey.start !== 'string' || journey.nodes === null || typeof journey.nodes !== 'object') throw new Error('It needs "start" (a node\'s name) and "nodes" (an object).');
    return nodesTable('Preview of the journey', journey);
  } catch (error) {
    return h('p', { class: 'note' }, 'No preview yet: ' + ((error as Error).message || 'the JSON is not a journey.'));
  }
}

export async function journeysView(realm: string, panel: HTMLElement) {
  const list = h('div');
  const name = h('input', { name: 'name', required: true, maxlength: 64, autocomplete: 'off', spellcheck: 'false' });
  const json = h('textarea', { name: 'journey', rows: 14, required: true, spellcheck: 'false', class: 'code', value: JSON.stringify(EXAMPLE, null, 2) });

  // The nodes of what is typed, drawn as it is typed: the JSON is the advanced view of them.
  const drawn = h('div', { class: 'journey-preview', 'aria-live': 'polite' });
  const redraw = () => drawn.replaceChildren(preview(json.value));
  json.addEventListener('input', redraw);
  redraw();

  function edit(entry: NamedJourney) {
    name.value = entry.name;
    json.value = JSON.stringify(entry.journey, null, 2);
    redraw();
    json.focus();
  }

  function journeyCard({ name: journeyName, journey }: NamedJourney): HTMLElement {
    return h(
      'section',
      { class: 'journey', 'aria-label': 'Journey ' + journeyName },
      h('h3', {}, journeyName),
      h('p', {}, 'Starts at ', h('code', {}, journey.start), '.', journeyName === 'default' ? ' Runs unless a client or an acr value names another; deleting a stored default brings back the one made from the authentication setting.' : ''),
      nodesTable('Nodes of ' + journeyName, journey),
      h('button', { 'data-operation': 'putJourney', type: 'button', 'aria-label': 'Edit ' + journeyName, onclick: () => edit({ name: journeyName, journey }) }, 'Edit'),
      deleteButton(journeyName, 'Delete the journey ' + journeyName + '?', () => remove(journeyName), 'deleteJourney'),
    );
  }

  async function refresh() {
    const { journeys } = await api.journeys(realm);
    list.replaceChildren(...journeys.map(journeyCard));
  }

  async function remove(journeyName: string) {
    await api.deleteJourney(realm, journeyName);
    say('Journey ' + journeyName + ' deleted.');
    await refresh();
  }

  const form = h(
    'form',
    { 'aria-label': 'Store a journey' },
    h('h3', {}, 'Store a journey'),
    field('Journey name', name, 'Letters, digits, ".", "_" and "-". A journey of that name is replaced; "default" replaces the one made from the authentication setting.'),
    h('h4', {}, 'Its nodes'),
    drawn,
    field('Journey JSON', json, 'An object with "start" and "nodes" (docs/sign-in.md, Journeys). The server refuses a journey it cannot run, naming the node.'),
    h('button', { 'data-operation': 'putJourney', type: 'submit', class: 'primary' }, 'Save journey'),
  );
  form.addEventListener('submit', guarded(async () => {
    const journeyName = name.value.trim();
    await api.putJourney(realm, journeyName, parsedJourney(json.value));
    say('Journey ' + journeyName + ' saved.');
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(
    h('p', {}, 'A journey is the graph of steps a person walks to sign in. A client may name one; the realm\'s acr_journeys setting maps acr_values to them; otherwise default runs.'),
    list,
    form,
  );
}
