-- A token's client is checked when the token is read, no longer by a foreign key. The key's
-- check locked the client's row (FOR KEY SHARE) for every token written: a write to one of the
-- clients' pages per token, and, with tokens of one client written concurrently, a multixact.
--
-- Each client gets an internal id, given when it is created and never reused; a token carries
-- its client's. Reads (src/store/tokens.ts) take a token only while a client with that
-- internal id exists, so that a token written while its client was being deleted is dead,
-- and stays dead if a client is created again under the same client_id. Deleting a client or
-- a realm deletes its tokens by the internal id (src/store/clients.ts, src/store/realms.ts).
-- A token that such a statement did not see, or that was written when its client was already
-- gone (its internal id NULL, rather than the whole batch of tokens failing as it did with the
-- key), is never read, and is deleted when it expires.
ALTER TABLE clients ADD COLUMN internal_id bigint GENERATED ALWAYS AS IDENTITY;

ALTER TABLE tokens ADD COLUMN client_internal_id bigint;
UPDATE tokens t SET client_internal_id = c.internal_id FROM clients c WHERE c.realm = t.realm AND c.client_id = t.client_id;
ALTER TABLE tokens DROP CONSTRAINT tokens_realm_client_id_fkey;
DROP INDEX tokens_client;
CREATE INDEX tokens_client_internal_id ON tokens (client_internal_id);
