-- Tickets mailed to people (CONTRACT.md §9): the link that confirms an email address, and the
-- one that resets a password. Only the SHA-256 of a ticket's value is stored; a ticket works
-- once (used_at), until expires_at. The rows of the last 15 minutes are also what the limits per
-- person and per address count (src/store/tickets.ts), so the cleanup keeps them that long.
CREATE TABLE tickets (
  ticket_hash bytea PRIMARY KEY,
  kind        text NOT NULL CHECK (kind IN ('email_verification', 'password_reset')),
  realm       text NOT NULL,
  user_id     uuid NOT NULL,
  address     text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  FOREIGN KEY (realm, user_id) REFERENCES users (realm, id) ON DELETE CASCADE
);
CREATE INDEX tickets_expires_at ON tickets (expires_at);
CREATE INDEX tickets_per_person ON tickets (realm, user_id, kind, created_at);
CREATE INDEX tickets_per_address ON tickets (realm, address, kind, created_at);
