-- The browser flow: sessions, authorization requests in progress, pushed requests, codes,
-- remembered consent; refresh token rotation and what an ID token needs from its grant.
-- Every secret value (cookie, code, request_uri, transaction id) is stored as SHA-256 only.

-- A person's sign-in at a realm. `sid` is the public session id of ID tokens (OIDC Front-
-- and Back-Channel Logout); the cookie carries a separate secret.
CREATE TABLE sessions (
  secret_hash bytea PRIMARY KEY,
  sid         uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
  realm       text NOT NULL,
  user_id     uuid NOT NULL,
  auth_time   timestamptz NOT NULL,
  amr         text[] NOT NULL,
  expires_at  timestamptz NOT NULL,
  FOREIGN KEY (realm, user_id) REFERENCES users (realm, id) ON DELETE CASCADE
);
CREATE INDEX sessions_user ON sessions (realm, user_id);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

-- An authorization request between /authorize and the redirect back to the client: the
-- validated request, the browser it belongs to, and the session that signed in for it.
CREATE TABLE authorization_transactions (
  id_hash      bytea PRIMARY KEY,
  realm        text NOT NULL,
  client_id    text NOT NULL,
  browser_hash bytea NOT NULL,
  request      jsonb NOT NULL,
  sid          uuid,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  FOREIGN KEY (realm, client_id) REFERENCES clients (realm, client_id) ON DELETE CASCADE
);
CREATE INDEX authorization_transactions_expires_at ON authorization_transactions (expires_at);

-- RFC 9126: authorization requests pushed by a client, used once.
CREATE TABLE pushed_requests (
  uri_hash   bytea PRIMARY KEY,
  realm      text NOT NULL,
  client_id  text NOT NULL,
  request    jsonb NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at    timestamptz,
  FOREIGN KEY (realm, client_id) REFERENCES clients (realm, client_id) ON DELETE CASCADE
);
CREATE INDEX pushed_requests_expires_at ON pushed_requests (expires_at);

-- Authorization codes: single use, decided by `UPDATE … WHERE used_at IS NULL`. A used code
-- stays a day past its expiry, so that a second use is recognised (replayed_at) and revokes
-- its grant, even when it races the first use's token writes.
CREATE TABLE authorization_codes (
  code_hash          bytea PRIMARY KEY,
  realm              text NOT NULL,
  client_id          text NOT NULL,
  grant_id           uuid NOT NULL,
  user_id            uuid NOT NULL,
  sid                uuid NOT NULL,
  scope              text NOT NULL,
  redirect_uri       text NOT NULL,
  redirect_uri_given boolean NOT NULL,
  code_challenge     text,
  nonce              text,
  auth_time          timestamptz NOT NULL,
  amr                text[] NOT NULL,
  expires_at         timestamptz NOT NULL,
  used_at            timestamptz,
  replayed_at        timestamptz,
  FOREIGN KEY (realm, client_id) REFERENCES clients (realm, client_id) ON DELETE CASCADE,
  FOREIGN KEY (realm, user_id) REFERENCES users (realm, id) ON DELETE CASCADE
);
CREATE INDEX authorization_codes_expires_at ON authorization_codes (expires_at);

-- What a person allowed a client, so that consent is asked again only for new scopes.
CREATE TABLE consents (
  realm      text NOT NULL,
  user_id    uuid NOT NULL,
  client_id  text NOT NULL,
  scope      text[] NOT NULL,
  granted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (realm, user_id, client_id),
  FOREIGN KEY (realm, user_id) REFERENCES users (realm, id) ON DELETE CASCADE,
  FOREIGN KEY (realm, client_id) REFERENCES clients (realm, client_id) ON DELETE CASCADE
);

-- A rotated refresh token is marked used rather than deleted, so that its replay is seen.
-- auth_time, amr and sid carry the sign-in into the ID tokens of later refreshes.
-- A person's tokens are deleted with them by the statement that deletes the user
-- (src/store/users.ts), not by a foreign key: its check would cost every token insert.
ALTER TABLE tokens
  ADD COLUMN used_at timestamptz,
  ADD COLUMN auth_time timestamptz,
  ADD COLUMN amr text[],
  ADD COLUMN sid uuid;
CREATE INDEX tokens_user ON tokens (realm, user_id) WHERE user_id IS NOT NULL;
