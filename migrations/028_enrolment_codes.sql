-- A code mailed to a person's verified address before they enrol a first second factor during
-- a sign-in (CONTRACT.md §8). It is a ticket of its own kind, so that the tickets' limits per
-- person and per address count its mails; it works only for the sign-in it was sent for (the
-- SHA-256 of that transaction's id), only while it lives, and for a few tries. The code itself is
-- stored as a SHA-256 bound to the transaction's secret id. A matched code is used (used_at);
-- one replaced by a new mail, or out of tries, has tries_left 0.
ALTER TABLE tickets DROP CONSTRAINT tickets_kind_check;
ALTER TABLE tickets ADD CONSTRAINT tickets_kind_check CHECK (kind IN ('email_verification', 'password_reset', 'enrolment_code'));
ALTER TABLE tickets ADD COLUMN transaction_hash bytea;
ALTER TABLE tickets ADD COLUMN code_hash bytea;
ALTER TABLE tickets ADD COLUMN tries_left smallint;
CREATE INDEX tickets_per_transaction ON tickets (transaction_hash, realm, user_id) WHERE transaction_hash IS NOT NULL;
