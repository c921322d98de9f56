/**
 * The admin console's documents module: a realm as one JSON document (CONTRACT.md §10), exported
 * to be read or downloaded, and a document imported into a realm (made when there is none).
 */
import { api } from './api.js';
import type { ImportSummary } from './records.js';
import { checkbox, confirmed, field, guarded, h, isChecked, say, setValue, valueOf } from './dom.js';

/** What an import did, section by section, in one sentence. */
function summaryOf(summary: ImportSummary): string {
  const sections = Object.entries(summary.sections).map(([name, done]) => {
    const parts = ([['created', done.created.length], ['changed', done.changed.length], ['deleted', done.deleted.length]] as const).filter(([, count]) => count > 0);
    return name + ' ' + (parts.length === 0 ? 'unchanged' : parts.map(([what, count]) => count + ' ' + what).join(', '));
  });
  const secrets = [...summary.secrets_to_set.clients.map((id) => 'client ' + id), ...summary.secrets_to_set.identity_providers.map((alias) => 'identity provider ' + alias)];
  return 'Realm ' + summary.realm + (summary.realm_created ? ' created' : ' imported') + ': ' + (sections.join('; ') || 'nothing to do') + '.' +
    (secrets.length === 0 ? '' : ' Without a secret yet: ' + secrets.join(', ') + '.');
}

/** The realm's document: shown read-only, with a link that saves it as a file. */
export function exportSection(realm: string): HTMLElement {
  const output = h('div');
  let url: string | undefined;
  const form = h(
    'form',
    { 'aria-label': 'Export the realm' },
    h('h3', {}, 'Export'),
    h('p', {}, 'The realm as one JSON document: its settings, scopes, roles, groups, journeys, clients, identity providers and trusted issuers, never a secret. Import it here or into another server.'),
    checkbox('With its people (and their password hashes)', 'users', false),
    h('button', { 'data-operation': 'exportRealm', type: 'submit' }, 'Export realm'),
  );
  form.addEventListener('submit', guarded(async () => {
    const users = isChecked(form, 'users');
    const text = JSON.stringify(await api.exportRealm(realm, users), null, 2);
    if (url) URL.revokeObjectURL(url);
    url = URL.createObjectURL(new Blob([text + '\n'], { type: 'application/json' }));
    output.replaceChildren(
      users ? h('p', { class: 'note' }, 'It holds password hashes: keep it as you keep the database.') : '',
      field('Realm document', h('textarea', { name: 'document', rows: 12, readonly: true, spellcheck: 'false', class: 'code', value: text })),
      h('a', { href: url, download: realm + '.json' }, 'Download ' + realm + '.json'),
    );
    say('Realm ' + realm + ' exported' + (users ? ' with its people.' : '.'));
  }));
  return h('section', { class: 'documents' }, form, output);
}

/** A document imported into the realm it names (asked first when it prunes); then done(summary) runs. */
export function importForm(done: (summary: ImportSummary) => unknown): HTMLFormElement {
  const form = h(
    'form',
    { 'aria-label': 'Import a realm' },
    h('h3', {}, 'Import a realm'),
    field('Realm to import into', h('input', { name: 'realm', required: true, maxlength: 63, autocomplete: 'off' }), 'Made when there is none; what the document describes as it is stays as it is.'),
    field('Document (JSON)', h('textarea', { name: 'document', rows: 8, required: true, spellcheck: 'false', class: 'code' }), 'A realm\'s export. A section the document leaves out is left alone.'),
    checkbox('Prune: delete what a section of the document leaves out', 'prune', false),
    h('button', { 'data-operation': 'importRealm', type: 'submit', class: 'primary' }, 'Import'),
  );
  form.addEventListener('submit', guarded(async () => {
    const realm = valueOf(form, 'realm').trim();
    let document: unknown;
    try {
      document = JSON.parse(valueOf(form, 'document'));
    } catch (error) {
      throw new Error('The document is not valid JSON: ' + (error as Error).message);
    }
    const prune = isChecked(form, 'prune');
    if (prune && !(await confirmed('Import into ' + realm + ' and delete what the document\'s sections leave out? This cannot be undone.', 'Import and prune'))) return;
    const summary = await api.importRealm(realm, document, prune);
    setValue(form, 'document', '');
    await done(summary);
    say(summaryOf(summary));
  }));
  return form;
}
