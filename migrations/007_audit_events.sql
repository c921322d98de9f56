-- The audit trail (src/audit/): one row per event, kept for the realm's audit_event_lifetime.
-- No foreign keys: an event outlives the client, person or realm it is about. user_id is text,
-- not uuid, so that a row never fails on what a caller recorded. occurred_at has millisecond
-- precision, as the events API's cursor (occurred_at, id) carries it.
CREATE TABLE audit_events (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  realm       text NOT NULL,
  occurred_at timestamptz(3) NOT NULL,
  type        text NOT NULL,
  client_id   text,
  user_id     text,
  address     text,
  details     jsonb NOT NULL DEFAULT '{}',
  expires_at  timestamptz NOT NULL
);
-- Newest first, per realm, with or without each filter of GET /admin/realms/{realm}/events.
CREATE INDEX audit_events_realm_time ON audit_events (realm, occurred_at DESC, id DESC);
CREATE INDEX audit_events_realm_type_time ON audit_events (realm, type, occurred_at DESC, id DESC);
CREATE INDEX audit_events_realm_client_time ON audit_events (realm, client_id, occurred_at DESC, id DESC) WHERE client_id IS NOT NULL;
CREATE INDEX audit_events_realm_user_time ON audit_events (realm, user_id, occurred_at DESC, id DESC) WHERE user_id IS NOT NULL;
CREATE INDEX audit_events_expires_at ON audit_events (expires_at);
