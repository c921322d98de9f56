/**
 * The admin console's issuers module: the identity systems whose JWTs or SAML 2.0
 * assertions the realm accepts (the assertion grants and token exchange): a list, a new one,
 * changes to one, deletion once confirmed.
 */
import { api } from './api.js';
import type { TrustedIssuer } from './records.js';
import { checkbox, control, deleteButton, field, guarded, h, isChecked, jsonObject, localNumber, same, say, setChecked, setValue, table, valueOf } from './dom.js';
import { t } from './i18n.js';

const subjectMappings = () => [
  ['username', t('username: the subject is a username of the realm')],
  ['email', t('email: the subject is a person\'s email address')],
  ['id', t('id: the subject is a person\'s sub')],
];

/** What the issuer is trusted by: its keys, where they are published, or its certificate. */
function trustedBy(issuer: TrustedIssuer): string {
  if (issuer.jwks) {
    const count = issuer.jwks.keys.length;
    return count === 1 ? t('jwks (1 key)') : t('jwks ({count} keys)', { count: localNumber(count) });
  }
  if (issuer.jwks_uri) return 'jwks_uri ' + issuer.jwks_uri;
  return issuer.certificate_pem ? t('certificate') : '';
}

/** The fields both forms share, filled with the issuer's values. */
const recordFields = (issuer: Partial<TrustedIssuer> & Pick<TrustedIssuer, 'issuer' | 'subject_mapping'>) => [
  field(t('Issuer'), h('input', { name: 'issuer', required: true, maxlength: 2000, value: issuer.issuer, spellcheck: 'false' }), t('The JWT\'s iss, or the SAML assertion\'s Issuer, exactly.')),
  field(
    t('Subject mapping'),
    h('select', { name: 'subject_mapping' }, subjectMappings().map(([value, label]) => h('option', { value, selected: value === issuer.subject_mapping }, label))),
  ),
  field(t('Client IDs'), h('input', { name: 'client_ids', value: (issuer.client_ids ?? []).join(' '), spellcheck: 'false' }), t('The clients that may present its assertions, separated by spaces; empty: every client allowed the grant.')),
  field(t('JWKS (JSON)'), h('textarea', { name: 'jwks', rows: 4, spellcheck: 'false', class: 'code', value: issuer.jwks ? JSON.stringify(issuer.jwks, null, 2) : '' }), t('A jwt issuer: its public keys, {example}; or give its JWKS URI instead.', { example: '{"keys": [...]}' })),
  field(t('JWKS URI'), h('input', { name: 'jwks_uri', value: issuer.jwks_uri ?? '', spellcheck: 'false' }), t('A jwt issuer: where it publishes its keys (https).')),
  field(t('Certificate (PEM)'), h('textarea', { name: 'certificate_pem', rows: 4, spellcheck: 'false', class: 'code', value: issuer.certificate_pem ?? '' }), t('A saml2 issuer: the X.509 certificate it signs with.')),
  checkbox(t('Issues ID-JAGs'), 'id_jag', issuer.id_jag, t('A jwt issuer: its assertions are identity assertion grants (typ oauth-id-jag+jwt), each for the client its client_id names, and it is trusted for nothing else.')),
  checkbox(t('Link by verified email'), 'link_by_email', issuer.link_by_email, t('With ID-JAGs: a subject not linked to a person yet is the person whose verified email the ID-JAG names.')),
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
        t('Trusted issuers'),
        [t('Issuer'), t('Kind'), t('Subject'), t('Clients'), t('Trusted by'), 'ID', ''],
        issuers.map((issuer) => [
          issuer.issuer,
          issuer.id_jag ? issuer.kind + ' (ID-JAG)' : issuer.kind,
          issuer.subject_mapping,
          issuer.client_ids ? issuer.client_ids.join(', ') : t('every client'),
          trustedBy(issuer),
          h('code', {}, issuer.id),
          h(
            'div',
            { class: 'actions' },
            h('button', { 'data-operation': 'updateTrustedIssuer', type: 'button', 'aria-label': t('Edit {name}', { name: issuer.issuer + ' (' + issuer.kind + ')' }), onclick: () => edit(issuer) }, t('Edit')),
            deleteButton(issuer.issuer + ' (' + issuer.kind + ')', t('Stop trusting {issuer}? Its {kind} assertions are refused from now on.', { issuer: issuer.issuer, kind: issuer.kind }), () => remove(issuer), 'deleteTrustedIssuer'),
          ),
        ]),
      ),
    );
  }

  async function remove(issuer: TrustedIssuer) {
    await api.deleteTrustedIssuer(realm, issuer.id);
    editor.replaceChildren();
    say(t('Trusted issuer {issuer} deleted.', { issuer: issuer.issuer }));
    await refresh();
  }

  function edit(issuer: TrustedIssuer) {
    const form = h(
      'form',
      { 'aria-label': t('Edit trusted issuer {issuer}', { issuer: issuer.issuer }) },
      h('h3', {}, t('Edit trusted issuer ({kind})', { kind: issuer.kind })),
      recordFields(issuer),
      h('button', { 'data-operation': 'updateTrustedIssuer', type: 'submit', class: 'primary' }, t('Save trusted issuer')),
      h('button', { type: 'button', onclick: () => editor.replaceChildren() }, t('Cancel')),
    );
    form.addEventListener('submit', guarded(async () => {
      // PATCH merges: only what changed is sent; null clears an optional field.
      const patch = Object.fromEntries(Object.entries(recordOf(form)).filter(([name, value]) => !same(value, issuer[name] ?? ABSENT[name] ?? null)));
      if (Object.keys(patch).length === 0) return say(t('Nothing changed.'));
      await api.updateTrustedIssuer(realm, issuer.id, patch);
      editor.replaceChildren();
      say(t('Trusted issuer {issuer} saved: {fields}.', { issuer: issuer.issuer, fields: Object.keys(patch).join(', ') }));
      await refresh();
    }));
    editor.replaceChildren(form);
    control(form, 'issuer').focus();
  }

  const create = h(
    'form',
    { 'aria-label': t('New trusted issuer') },
    h('h3', {}, t('New trusted issuer')),
    field(t('Kind'), h('select', { name: 'kind' }, h('option', { value: 'jwt' }, t('jwt (JWT bearer grant, token exchange)')), h('option', { value: 'saml2' }, t('saml2 (SAML 2.0 bearer grant)')))),
    recordFields({ issuer: '', subject_mapping: 'username' }),
    h('button', { 'data-operation': 'createTrustedIssuer', type: 'submit', class: 'primary' }, t('Trust issuer')),
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
    say(t('Trusted issuer {issuer} created.', { issuer: issuer.issuer }));
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(
    h('p', {}, t('The realm accepts the assertions these issuers sign: JWTs (JWT bearer grant, token exchange) and SAML 2.0 assertions (SAML 2.0 bearer grant).')),
    list,
    editor,
    create,
  );
}
