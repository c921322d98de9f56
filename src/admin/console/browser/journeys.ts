/**
 * The admin console's journeys module: a realm's authentication journeys (CONTRACT.md §8),
 * each shown as its nodes with where each outcome leads, with Edit and Delete; and the form
 * that stores one, built in the journey editor (journey-editor.ts). The server judges what is
 * sent, and its refusal, which names the node, is shown beside the form and in that node's card.
 */
import { api } from './api.js';
import { deleteButton, field, h, quiet, say, table } from './dom.js';
import { t } from './i18n.js';
import { edgesOf, inWalkOrder } from './journey-graph.js';
import { journeyEditor } from './journey-editor.js';
import type { JourneyNode, NamedJourney } from './records.js';

/** The type, with what a node asks beyond it. */
function typeOf(node: JourneyNode): string {
  if (node.type === 'condition') {
    const asked = typeof node.if === 'object' ? 'client_in ' + node.if.client_in.join(', ') : String(node.if);
    return t('condition: {asked}', { asked });
  }
  if (node.type === 'passkey' && node.enrol) return t('passkey (enrols one)');
  return node.type;
}

/** The nodes in walk order, each with its type and where each outcome leads. */
const nodesTable = ({ name, journey }: NamedJourney) =>
  table(
    t('Nodes of {name}', { name }),
    [t('Node'), t('Node type'), t('Outcomes')],
    inWalkOrder(journey).map((node) => [
      h('code', {}, node),
      typeOf(journey.nodes[node]!),
      edgesOf(journey.nodes[node]!).map(([outcome, target]) => outcome + ' → ' + target).join('\n'),
    ]),
  );

export async function journeysView(realm: string, panel: HTMLElement) {
  const list = h('div');
  const name = h('input', { name: 'name', required: true, maxlength: 64, autocomplete: 'off', spellcheck: 'false' });
  const editor = journeyEditor();
  const problem = h('p', { class: 'journey-problem', role: 'alert' });

  function edit(entry: NamedJourney) {
    name.value = entry.name;
    editor.load(entry.journey);
    problem.textContent = '';
    heading.textContent = t('Edit the journey {name}', { name: entry.name });
    heading.scrollIntoView({ block: 'start' });
    name.focus();
  }

  function journeyCard(entry: NamedJourney): HTMLElement {
    const { name: journeyName, journey } = entry;
    return h(
      'section',
      { class: 'journey', 'aria-label': t('Journey {name}', { name: journeyName }) },
      h('h3', {}, journeyName),
      h(
        'p',
        {},
        journeyName === 'default'
          ? t('Starts at {start}. Runs unless a client or an acr value names another; deleting a stored default brings back the one made from the authentication setting.', { start: journey.start })
          : t('Starts at {start}.', { start: journey.start }),
      ),
      nodesTable(entry),
      h('button', { 'data-operation': 'putJourney', type: 'button', 'aria-label': t('Edit {name}', { name: journeyName }), onclick: () => edit(entry) }, t('Edit')),
      deleteButton(journeyName, t('Delete the journey {name}?', { name: journeyName }), () => remove(journeyName), 'deleteJourney'),
    );
  }

  async function refresh() {
    const { journeys } = await api.journeys(realm);
    list.replaceChildren(...journeys.map(journeyCard));
  }

  async function remove(journeyName: string) {
    await api.deleteJourney(realm, journeyName);
    say(t('Journey {name} deleted.', { name: journeyName }));
    await refresh();
  }

  const heading = h('h3', {}, t('Store a journey'));
  const save = h('button', { 'data-operation': 'putJourney', type: 'submit', class: 'primary' }, t('Save journey'));
  const form = h(
    'form',
    { 'aria-label': t('Store a journey'), class: 'journey-form' },
    heading,
    field(t('Journey name'), name, t('Letters, digits, ".", "_" and "-". A journey of that name is replaced; "default" replaces the one made from the authentication setting.')),
    editor.element,
    save,
    problem,
  );
  // What was said of the journey before it changed no longer holds.
  for (const type of ['input', 'change']) form.addEventListener(type, () => (problem.textContent = ''));
  // Not dom.ts's guarded: a refusal is shown beside the form and in the node's card, not on the message line.
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    quiet();
    problem.textContent = '';
    const journeyName = name.value.trim();
    let journey;
    try {
      journey = editor.journey();
    } catch (error) {
      problem.textContent = (error as Error).message;
      return;
    }
    save.disabled = true;
    try {
      await api.putJourney(realm, journeyName, journey);
    } catch (error) {
      const reason = (error as Error).message;
      problem.textContent = t('The server refused the journey: {reason}', { reason });
      editor.refused(reason);
      return;
    } finally {
      save.disabled = false;
    }
    say(t('Journey {name} saved.', { name: journeyName }));
    await refresh().catch((error: Error) => say(error.message, 'error'));
  });

  await refresh();
  panel.replaceChildren(
    h('p', {}, t("A journey is the graph of steps a person walks to sign in. A client may name one; the realm's acr_journeys setting maps acr_values to them; otherwise default runs.")),
    list,
    form,
  );
  editor.load({ start: '', nodes: {} });
}
