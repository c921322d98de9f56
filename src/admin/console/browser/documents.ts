/**
 * The admin console's documents module: a realm as one JSON document (CONTRACT.md §10), exported
 * to be read or downloaded, and a document imported into a realm (made when there is none).
 */
import { api } from './api.js';
import type { ImportSummary } from './records.js';
import { checkbox, confirmed, field, guarded, h, isChecked, localNumber, say, setValue, valueOf } from './dom.js';
import { t } from './i18n.js';

/** What an import did, section by section (sections named by their JSON keys), in one sentence. */
function summaryOf(summary: ImportSummary): string {
  const sections = Object.entries(summary.sections).map(([name, done]) => {
    const parts = [
      done.created.length > 0 ? t('{count} created', { count: localNumber(done.created.length) }) : '',
      done.changed.length > 0 ? t('{count} changed', { count: localNumber(done.changed.length) }) : '',
      done.deleted.length > 0 ? t('{count} deleted', { count: localNumber(done.deleted.length) }) : '',
    ].filter(Boolean);
    return t('{section} {changes}', { section: name, changes: parts.length === 0 ? t('unchanged') : parts.join(', ') });
  });
  const secrets = [
    ...summary.secrets_to_set.clients.map((id) => t('client {id}', { id })),
    ...summary.secrets_to_set.identity_providers.map((alias) => t('identity provider {alias}', { alias })),
  ];
  const done = sections.join('; ') || t('nothing to do');
  const said = summary.realm_created ? t('Realm {realm} created: {done}.', { realm: summary.realm, done }) : t('Realm {realm} imported: {done}.', { realm: summary.realm, done });
  return secrets.length === 0 ? said : said + ' ' + t('Without a secret yet: {secrets}.', { secrets: secrets.join(', ') });
}

/** The realm's document: shown read-only, with a link that saves it as a file. */
export function exportSection(realm: string): HTMLElement {
  const output = h('div');
  let url: string | undefined;
  const form = h(
    'form',
    { 'aria-label': t('Export the realm') },
    h('h3', {}, t('Export')),
    h('p', {}, t('The realm as one JSON document: its settings, scopes, roles, groups, journeys, clients, identity providers and trusted issuers, never a secret. Import it here or into another server.')),
    checkbox(t('With its people (and their password hashes)'), 'users', false),
    h('button', { 'data-operation': 'exportRealm', type: 'submit' }, t('Export realm')),
  );
  form.addEventListener('submit', guarded(async () => {
    const users = isChecked(form, 'users');
    const text = JSON.stringify(await api.exportRealm(realm, users), null, 2);
    if (url) URL.revokeObjectURL(url);
    url = URL.createObjectURL(new Blob([text + '\n'], { type: 'application/json' }));
    output.replaceChildren(
      users ? h('p', { class: 'note' }, t('It holds password hashes: keep it as you keep the database.')) : '',
      field(t('Realm document'), h('textarea', { name: 'document', rows: 12, readonly: true, spellcheck: 'false', class: 'code', value: text })),
      h('a', { href: url, download: realm + '.json' }, t('Download {file}', { file: realm + '.json' })),
    );
    say(users ? t('Realm {realm} exported with its people.', { realm }) : t('Realm {realm} exported.', { realm }));
  }));
  return h('section', { class: 'documents' }, form, output);
}

/** A document imported into the realm it names (asked first when it prunes); then done(summary) runs. */
export function importForm(done: (summary: ImportSummary) => unknown): HTMLFormElement {
  const form = h(
    'form',
    { 'aria-label': t('Import a realm') },
    h('h3', {}, t('Import a realm')),
    field(t('Realm to import into'), h('input', { name: 'realm', required: true, maxlength: 63, autocomplete: 'off' }), t('Made when there is none; what the document describes as it is stays as it is.')),
    field(t('Document (JSON)'), h('textarea', { name: 'document', rows: 8, required: true, spellcheck: 'false', class: 'code' }), t('A realm\'s export. A section the document leaves out is left alone.')),
    checkbox(t('Prune: delete what a section of the document leaves out'), 'prune', false),
    h('button', { 'data-operation': 'importRealm', type: 'submit', class: 'primary' }, t('Import')),
  );
  form.addEventListener('submit', guarded(async () => {
    const realm = valueOf(form, 'realm').trim();
    let document: unknown;
    try {
      document = JSON.parse(valueOf(form, 'document'));
    } catch (error) {
      throw new Error(t('The document is not valid JSON: {reason}', { reason: (error as Error).message }));
    }
    const prune = isChecked(form, 'prune');
    if (prune && !(await confirmed(t('Import into {realm} and delete what the document\'s sections leave out? This cannot be undone.', { realm }), t('Import and prune')))) return;
    const summary = await api.importRealm(realm, document, prune);
    setValue(form, 'document', '');
    await done(summary);
    say(summaryOf(summary));
  }));
  return form;
}
