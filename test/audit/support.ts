import type { LightMyRequestResponse } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { AdminClient, TestApp } from '../support/app.js';

/** An audit event as GET /admin/realms/{realm}/events answers it. */
export interface EventView {
  id: string;
  occurred_at: string;
  realm: string;
  type: string;
  client_id: string | null;
  user_id: string | null;
  address: string | null;
  details: Record<string, unknown>;
  /** An admin change's (CONTRACT.md §14). */
  actor?: { admin_token: true } | { sub: string; client_id: string };
}

export interface EventPage {
  events: EventView[];
  next: string | null;
}

/** The query of the events API: an array repeats its parameter. */
export function eventsUrl(realm: string, query: Record<string, string | string[]> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) for (const item of [value].flat()) search.append(name, item);
  const text = search.toString();
  return `/realms/${encodeURIComponent(realm)}/events${text ? `?${text}` : ''}`;
}

export function requestEvents(admin: AdminClient, realm: string, query: Record<string, string | string[]> = {}): Promise<LightMyRequestResponse> {
  return admin.request('GET', eventsUrl(realm, query));
}

/** One page of the realm's events, newest first. */
export async function eventsOf(admin: AdminClient, realm: string, query: Record<string, string | string[]> = {}): Promise<EventPage> {
  const response = await requestEvents(admin, realm, query);
  if (response.statusCode !== 200) throw new Error(`events: ${response.statusCode} ${response.body}`);
  return response.json() as EventPage;
}

/** The types of the realm's events, oldest first: the order they happened in. */
export async function typesOf(admin: AdminClient, realm: string, query: Record<string, string | string[]> = {}): Promise<string[]> {
  return (await eventsOf(admin, realm, { limit: '1000', ...query })).events.map((event) => event.type).reverse();
}

/** The realm's newest event of a type. */
export async function lastEvent(admin: AdminClient, realm: string, type: string): Promise<EventView> {
  const [event] = (await eventsOf(admin, realm, { type, limit: '1' })).events;
  if (!event) throw new Error(`no ${type} event in ${realm}`);
  return event;
}

/**
 * A realm of a test's own, without the rate limits, for tests that send many requests.
 * (src/records/realm-settings.ts: `rate_limit_*` null means no limit.)
 */
export async function unlimitedRealm(t: Pick<TestApp, 'admin'>, settings: Record<string, unknown> = {}): Promise<string> {
  const name = `a-${randomBytes(5).toString('hex')}`;
  await t.admin.createRealm(name, { rate_limit_token: null, rate_limit_sign_in: null, ...settings });
  return name;
}
