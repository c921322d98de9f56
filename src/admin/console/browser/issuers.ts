/**
 * The admin console's issuers module: the identity systems whose JWTs or SAML 2.0
 * assertions the realm accepts (the assertion grants and token exchange): a list, a new one,
 * changes to one, deletion once confirmed.
 */
import { api } from './api.js';
import type { TrustedIssuer } from './records.js';
import { checkbox, control, deleteButton, field, guarded, h, isChecked, jsonObject, same, say, setChecked, setValue, table, valueOf } from './dom.js';

const SUBJECT_MAPPINGS = [
  ['username', 'username: the subject is a username of the realm'],
  ['email', 'email: the subject is a person\'s email address'],
  ['id', 'id: the subject is a person\'s sub'],
];

/** What the issuer is trusted by: its keys, where they are published, or its certificate. */
function trustedBy(issuer: TrustedIssuer): string {
  if (issuer.jwks) return 'jwks (' + issuer.jwks.keys.length + (issuer.jwks.keys.length === 1 ? ' key)' : ' keys)');
  if (issuer.jwks_uri) return 'jwks_uri ' + issuer.jwks_uri;
  return issuer.certificate_pem ? 'certificate' : '';
}

/** The fields both forms share, filled with the issuer's values. */
const recordFields = (issuer: Partial<TrustedIssuer> & Pick<TrustedIssuer, 'issuer' | 'subject_mapping'>) => [
  field('Issuer', h('input', { name: 'issuer', required: true, maxlength: 2000, value: issuer.issuer, spellcheck: 'false' }), 'The JWT\'s iss, or the SAML assertion\'s Issuer, exactly.'),
  field(
    'Subject mapping',
    h('select', { name: 'subject_mapping' }, SUBJECT_MAPPINGS.map(([value, label]) => h('option', { value, selected: value === issuer.subject_mapping }, label))),
  ),
  field('Client IDs', h('input', { name: 'client_ids', value: (issuer.client_ids ?? []).join(' '), spellcheck: 'false' }), 'The clients that may present its assertions, separated by spaces; empty: every client allowed the grant.'),
  field('JWKS (JSON)', h('textarea', { name: 'jwks', rows: 4, spellcheck: 'false', class: 'code', value: issuer.jwks ? JSON.stringify(issuer.jwks, null, 2) : '' }), 'A jwt issuer: its public keys, {"keys": [...]}; or give its JWKS URI instead.'),
  field('JWKS URI', h('input', { name: 'jwks_uri', value: issuer.jwks_uri ?? '', spellcheck: 'false' }), 'A jwt issuer: where it publishes its keys (https).'),
  field('Certificate (PEM)', h('textarea', { name: 'certificate_pem', rows: 4, spellcheck: 'false', class: 'code', value: issuer.certificate_pem ?? '' }), 'A saml2 issuer: the X.509 certificate it signs with.'),
  checkbox('Issues ID-JAGs', 'id_jag', issuer.id_jag, 'A jwt issuer: its assertions are identity assertion grants (typ oauth-id-jag+jwt), each for the client its client_id names, and it is trusted for nothing else.'),
  checkbox('Link by verified email', 'link_by_email', issuer.link_by_email, 'With ID-JAGs: a subject not linked to a person yet is the person whose verified email the ID-JAG names.'),
];

/** What a field the record may lack is when it does: unticked. */
const ABSENT: Record<string, unknown> = { id_jag: false, link_by_email: false };

/** What the shared fields say; an empty optional one is null. */
function recordOf(form: HTMLFormElement) {
  const text = (name: string) => valueOf(form, name).trim() || null;
  const clientIds = valueOf(form, 'client_ids').split(/[\s,]+/).filter(Boolean);
  return {
    issuer: valueOf(form, 'issuer').trim(),
    subject_mapping: valueOf(form, 'subject_mapping'),
    client_ids: clientIds.length > 0 ? clientIds : null,
    jwks: jsonObject(valueOf(form, 'jwks'), 'JWKS') ?? null,
    jwks_uri: text('jwks_uri'),
    certificate_pem: text('certificate_pem'),
    id_jag: isChecked(form, 'id_jag'),
    link_by_email: isChecked(form, 'link_by_email'),
  };
}

export async function trustedIssuersView(realm: string, panel: HTMLElement) {
  const list = h('div');
  const editor = h('div');

  async function refresh() {
    const issuers = await api.trustedIssuers(realm);
    list.replaceChildren(
      table(
        'Trusted issuers',
        ['Issuer', 'Kind', 'Subject', 'Clients', 'Trusted by', 'ID', ''],
        issuers.map((issuer) => [
          issuer.issuer,
          issuer.id_jag ? issuer.kind + ' (ID-JAG)' : issuer.kind,
          issuer.subject_mapping,
          issuer.client_ids ? issuer.client_ids.join(', ') : 'every client',
          trustedBy(issuer),
          h('code', {}, issuer.id),
          h(
            'div',
            { class: 'actions' },
            h('button', { 'data-operation': 'updateTrustedIssuer', type: 'button', 'aria-label': 'Edit ' + issuer.issuer + ' (' + issuer.kind + ')', onclick: () => edit(issuer) }, 'Edit'),
            deleteButton(issuer.issuer + ' (' + issuer.kind + ')', 'Stop trusting ' + issuer.issuer + '? Its ' + issuer.kind + ' assertions are refused from now on.', () => remove(issuer), 'deleteTrustedIssuer'),
          ),
        ]),
      ),
    );
  }

  async function remove(issuer: TrustedIssuer) {
    await api.deleteTrustedIssuer(realm, issuer.id);
    editor.replaceChildren();
    say('Trusted issuer ' + issuer.issuer + ' deleted.');
    await refresh();
  }

  function edit(issuer: TrustedIssuer) {
    const form = h(
      'form',
      { 'aria-label': 'Edit trusted issuer ' + issuer.issuer },
      h('h3', {}, 'Edit trusted issuer (' + issuer.kind + ')'),
      recordFields(issuer),
      h('button', { 'data-operation': 'updateTrustedIssuer', type: 'submit', class: 'primary' }, 'Save trusted issuer'),
      h('button', { type: 'button', onclick: () => editor.replaceChildren() }, 'Cancel'),
    );
    form.addEventListener('submit', guarded(async () => {
      // PATCH merges: only what changed is sent; null clears an optional field.
      const patch = Object.fromEntries(Object.entries(recordOf(form)).filter(([name, value]) => !same(value, issuer[name] ?? ABSENT[name] ?? null)));
      if (Object.keys(patch).length === 0) return say('Nothing changed.');
      await api.updateTrustedIssuer(realm, issuer.id, patch);
      editor.replaceChildren();
      say('Trusted issuer ' + issuer.issuer + ' saved: ' + Object.keys(patch).join(', ') + '.');
      await refresh();
    }));
    editor.replaceChildren(form);
    control(form, 'issuer').focus();
  }

  const create = h(
    'form',
    { 'aria-label': 'New trusted issuer' },
    h('h3', {}, 'New trusted issuer'),
    field('Kind', h('select', { name: 'kind' }, h('option', { value: 'jwt' }, 'jwt (JWT bearer grant, token exchange)'), h('option', { value: 'saml2' }, 'saml2 (SAML 2.0 bearer grant)'))),
    recordFields({ issuer: '', subject_mapping: 'username' }),
    h('button', { 'data-operation': 'createTrustedIssuer', type: 'submit', class: 'primary' }, 'Trust issuer'),
  );
  create.addEventListener('submit', guarded(async () => {
    const record = recordOf(create);
    const issuer = await api.createTrustedIssuer(realm, {
      kind: valueOf(create, 'kind'),
      // Only what was given: an issuer never trusted for ID-JAGs is saved without id_jag.
      ...Object.fromEntries(Object.entries(record).filter(([name, value]) => value !== null && !same(value, ABSENT[name]))),
    });
    for (const name of ['issuer', 'client_ids', 'jwks', 'jwks_uri', 'certificate_pem']) setValue(create, name, '');
    for (const name of Object.keys(ABSENT)) setChecked(create, name, false);
    say('Trusted issuer ' + issuer.issuer + ' created.');
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(
    h('p', {}, 'The realm accepts the assertions these issuers sign: JWTs (JWT bearer grant, token exchange) and SAML 2.0 assertions (SAML 2.0 bearer grant).'),
    list,
    editor,
    create,
  );
}
