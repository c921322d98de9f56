/**
 * The admin console's events module: a realm's audit events (GET …/events), newest first,
 * filtered as the API filters, a page at a time.
 */
import { api } from './api.js';
import type { Actor, AuditEvent } from './records.js';
import { field, guarded, h, localNumber, localTime, pagedTable, valueOf } from './dom.js';
import { t } from './i18n.js';

/** The filters as the API's query; local date-times become ISO 8601 instants. */
function queryOf(form: HTMLFormElement): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of ['type', 'client_id', 'username', 'user_id', 'limit']) {
    const value = valueOf(form, name).trim();
    if (value) query.set(name, name === 'type' ? value.split(/[\s,]+/).filter(Boolean).join(',') : value);
  }
  for (const name of ['since', 'until']) {
    const value = valueOf(form, name);
    if (value) query.set(name, new Date(value).toISOString());
  }
  return query;
}

/** Who made an admin change: ADMIN_TOKEN, or an administrator's token's subject and client. */
const actorOf = (actor: Actor | undefined): string => (actor === undefined ? '' : actor.admin_token ? 'ADMIN_TOKEN' : t('{sub} (client {client})', { sub: actor.sub, client: actor.client_id }));

const row = (event: AuditEvent) => [
  localTime(event.occurred_at),
  h('code', {}, event.type),
  event.client_id ?? '',
  event.user_id ?? '',
  event.address ?? '',
  actorOf(event.actor),
  h('code', { class: 'details' }, JSON.stringify(event.details)),
];

export async function eventsView(realm: string, panel: HTMLElement) {
  const results = h('div');
  const form = h(
    'form',
    { class: 'filters', 'aria-label': t('Event filters') },
    h(
      'div',
      { class: 'grid' },
      field(t('Types'), h('input', { name: 'type', list: 'event-types', autocomplete: 'off' }), t('Comma-separated, e.g. {examples}', { examples: 'sign_in.failed, token.revoked' })),
      field(t('Client ID'), h('input', { name: 'client_id', autocomplete: 'off' })),
      field(t('Username'), h('input', { name: 'username', autocomplete: 'off' })),
      field(t('User ID (sub)'), h('input', { name: 'user_id', autocomplete: 'off' })),
      field(t('Since'), h('input', { name: 'since', type: 'datetime-local', step: 1 })),
      field(t('Until'), h('input', { name: 'until', type: 'datetime-local', step: 1 })),
      field(t('Page size'), h('input', { name: 'limit', type: 'number', min: 1, max: 1000, placeholder: localNumber(100) })),
    ),
    h('button', { type: 'submit', class: 'primary' }, t('Show events')),
  );

  const show = pagedTable(results, {
    caption: t('Audit events'),
    headings: [t('When'), t('Type'), t('Client'), t('User'), t('Address'), t('Actor'), t('Details')],
    cursorParam: 'before',
    more: t('Older events'),
    fetchPage: async (query) => {
      const { events, next } = await api.events(realm, query);
      return { rows: events.map(row), next };
    },
  });

  form.addEventListener('submit', guarded(() => show(queryOf(form))));
  await show(new URLSearchParams());
  panel.replaceChildren(form, results);
}
