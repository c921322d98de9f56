-- The nodes of the person's a session passed (CONTRACT.md §8): `password`, `otp`, `passkey`,
-- `identity_provider:<alias>`, `email_verification`. A new request walks its own journey for its
-- own client against them (src/authn/session-fit.ts), and asks only for the nodes missing.
ALTER TABLE sessions ADD COLUMN nodes text[] NOT NULL DEFAULT '{}';

-- Sessions begun before: what their methods tell (an upstream provider's alias is not known,
-- so a session signed in through one walks that node again).
UPDATE sessions SET nodes = array_remove(ARRAY[
  CASE WHEN 'pwd' = ANY (amr) THEN 'password' END,
  CASE WHEN 'otp' = ANY (amr) THEN 'otp' END,
  CASE WHEN amr && ARRAY['hwk', 'swk'] THEN 'passkey' END
], NULL);
