-- Webhooks (CONTRACT.md §16): a realm's receivers of its audit events. `events` are the audit
-- event types a receiver wants; `secret_sealed` is the secret that signs each delivery, sealed
-- with the master key (AES-256-GCM, bound to the realm and the webhook's name) since it must be
-- read to sign: it is never answered after the PUT that set it.
CREATE TABLE webhooks (
  realm         text NOT NULL REFERENCES realms (name) ON DELETE CASCADE,
  name          text NOT NULL,
  url           text NOT NULL,
  events        text[] NOT NULL,
  secret_sealed bytea NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (realm, name)
);

-- Each audit event that a webhook of its realm wants is queued in the outbox
-- (migrations/032_outbox_and_session_clients.sql) by the statement that writes the event, in
-- its transaction: whichever code writes audit rows (the batched trail, a token's statement),
-- an event stored is an event owed, and an event rolled back is owed to no one. Once per
-- statement, over the rows it inserted: a realm without webhooks costs one index probe.
CREATE FUNCTION queue_webhook_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO outbox (kind, realm, target, payload)
  SELECT 'webhook', e.realm, w.url, jsonb_build_object('webhook', w.name, 'event', e.id::text)
    FROM inserted_events e
    JOIN webhooks w ON w.realm = e.realm AND e.type = ANY (w.events);
  RETURN NULL;
END;
$$;

CREATE TRIGGER audit_events_webhooks
  AFTER INSERT ON audit_events
  REFERENCING NEW TABLE AS inserted_events
  FOR EACH STATEMENT EXECUTE FUNCTION queue_webhook_deliveries();
