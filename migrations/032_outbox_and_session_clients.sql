-- The clients a session gave a code or tokens to (OpenID Connect Back-Channel Logout 1.0 §2.7,
-- CONTRACT.md §12): written by the statement that issues the code or answers the device or CIBA
-- request (no statement more), read by the statement that ends the session.
ALTER TABLE sessions ADD COLUMN clients text[] NOT NULL DEFAULT '{}';

-- Deliveries this server owes to a URL outside (a logout token, a CIBA notification; later audit
-- webhooks): a `kind` says how to send its `payload` to its `target`. Queued by the statement that
-- makes them owed, so that none is lost with the instance; any instance delivers a due row
-- (next_at <= now), claiming it by moving next_at past a lease (FOR UPDATE SKIP LOCKED), so that a
-- delivering instance that dies leaves the row due again. A 2xx sets delivered_at (never sent again);
-- a failure moves next_at by a backoff, until the retry window has passed (abandoned_at).
CREATE TABLE outbox (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind         text NOT NULL,
  realm        text NOT NULL REFERENCES realms (name) ON DELETE CASCADE,
  target       text NOT NULL,
  payload      jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  next_at      timestamptz NOT NULL DEFAULT now(),
  attempts     integer NOT NULL DEFAULT 0,
  last_failure text,
  delivered_at timestamptz,
  abandoned_at timestamptz
);
CREATE INDEX outbox_due ON outbox (next_at) WHERE delivered_at IS NULL AND abandoned_at IS NULL;
CREATE INDEX outbox_settled ON outbox (created_at) WHERE delivered_at IS NOT NULL OR abandoned_at IS NOT NULL;
