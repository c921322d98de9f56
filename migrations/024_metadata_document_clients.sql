-- Clients described by a metadata document (draft-ietf-oauth-client-id-metadata-document,
-- CONTRACT.md §11): their `client_id` is an https URL and their record is the document, fetched
-- and kept in memory (src/clients/metadata-document-clients.ts), never stored. What the flows
-- write of a client (transactions, pushed requests, codes, consents, device requests) names it
-- by a foreign key to clients, and tokens carry its internal id (migrations/008_token_client_check_on_read.sql); so each such
-- client has one row here, an anchor: `metadata_document` true, an empty record, created when
-- the document is first used in a realm and touched (updated_at) each time it is fetched again.
-- The admin API, the realm's document and every lookup of registered clients leave anchors out
-- (src/store/clients.ts); registered client ids cannot be URLs (they hold no "/").
ALTER TABLE clients ADD COLUMN metadata_document boolean NOT NULL DEFAULT false;

-- The cleanup deletes anchors that nothing needs any more (src/store/cleanup.ts): not fetched
-- for three days, no consent and no live token.
CREATE INDEX clients_metadata_document_updated_at ON clients (updated_at) WHERE metadata_document;
CREATE INDEX consents_client ON consents (realm, client_id);
