-- An email address belongs to at most one person per realm, ignoring case (CONTRACT.md §7):
-- a mail sent to it reaches that person, and a sign-in or reset by it names them alone.
--
-- A database may already hold people sharing an address. The oldest of them (by created_at,
-- then id) keeps it; the others lose their `email` and `email_verified` claims, and each such
-- person gets a `user.email_removed` audit event naming the address and who kept it, so that
-- an operator can find them (docs/operations.md "Upgrading").
WITH ranked AS (
  SELECT realm, id, username, claims->>'email' AS email,
         first_value(username) OVER same_address AS kept_by,
         row_number() OVER same_address AS rank
    FROM users
   WHERE claims ? 'email'
  WINDOW same_address AS (PARTITION BY realm, lower(claims->>'email') ORDER BY created_at, id)
), removed AS (
  UPDATE users u SET claims = u.claims - 'email' - 'email_verified', updated_at = now()
    FROM ranked r
   WHERE r.rank > 1 AND u.realm = r.realm AND u.id = r.id
  RETURNING r.realm, r.id, r.username, r.email, r.kept_by
)
INSERT INTO audit_events (realm, occurred_at, type, user_id, details, expires_at)
SELECT realm, now(), 'user.email_removed', id::text,
       jsonb_build_object('username', username, 'email', email, 'reason', 'duplicate', 'kept_by', kept_by),
       now() + interval '365 days'
  FROM removed;

-- Replaces the plain index of the same key (migrations/004_decoupled_flows.sql).
DROP INDEX users_email;
CREATE UNIQUE INDEX users_email ON users (realm, lower(claims->>'email'));

-- The mails sent to each recipient address of a realm in the last hour (CONTRACT.md §7: at most
-- 5 in an hour, registration, verification and reset alike): one row per address, whose
-- `sent_at` holds the times of that hour. A mail is allowed by one conditional upsert that
-- locks the row while it judges the count, so that no number of concurrent requests on any
-- number of instances sends a sixth.
CREATE TABLE mail_allowances (
  realm     text NOT NULL REFERENCES realms (name) ON DELETE CASCADE,
  recipient text NOT NULL,
  sent_at   timestamptz[] NOT NULL,
  PRIMARY KEY (realm, recipient)
);
