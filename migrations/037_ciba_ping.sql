-- CIBA ping mode (CIBA Core §10.2, CONTRACT.md §12): a request of a client registered for ping
-- keeps where to POST the ping and, sealed with the master key (AES-256-GCM, bound to the
-- request's realm and id), the auth_req_id and client_notification_token the ping carries; only
-- the SHA-256 of the auth_req_id stays in clear. The statement that records the person's answer
-- queues the ping in the outbox (migrations/032_outbox_and_session_clients.sql) with the request's
-- public id alone; the sender unseals these when it sends.
ALTER TABLE pending_authorizations ADD COLUMN notification_endpoint text;
ALTER TABLE pending_authorizations ADD COLUMN notification_sealed bytea;
