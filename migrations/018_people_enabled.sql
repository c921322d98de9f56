-- People an admin turned away (CONTRACT.md §10): a disabled person signs in nowhere and is
-- issued nothing. Every statement that issues to a person (a session, a token, a code's
-- exchange) reads the flag on the person's row while it locks that row FOR KEY SHARE; a
-- disable locks it FOR UPDATE, so that of a disable and an issuance one waits for the other,
-- and an issuance that waited sees the flag the disable committed.
ALTER TABLE users ADD COLUMN enabled boolean NOT NULL DEFAULT true;
