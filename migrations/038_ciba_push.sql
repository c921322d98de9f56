-- CIBA push mode (CIBA Core §10.3, CONTRACT.md §12). A request of a client registered for push
-- is marked `push`: it is never polled for, and its outcome goes to the client's notification
-- endpoint through the outbox (migrations/032_outbox_and_session_clients.sql). Its one outbox
-- entry (kind 'ciba_push', payload {request, client}) is queued with the request, due at its
-- expiry (the expired_token error); the person's answer makes it due at once. Whoever sends it
-- first mints the tokens, moving the request from approved to issued under its row lock, and keeps
-- the token response sealed with the master key (AES-256-GCM, bound to the request's realm and
-- id) in `push_response_sealed`, so that a retry sends the same response and never mints again.
ALTER TABLE pending_authorizations ADD COLUMN push boolean NOT NULL DEFAULT false;
ALTER TABLE pending_authorizations ADD COLUMN push_response_sealed bytea;
CREATE INDEX outbox_ciba_push_request ON outbox ((payload ->> 'request')) WHERE kind = 'ciba_push';
