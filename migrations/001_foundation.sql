-- Foundation: realms and what each realm owns, the server's own state, issued tokens.

-- Server-wide values such as the hash of a generated admin token.
CREATE TABLE server_state (
  name  text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE realms (
  name       text PRIMARY KEY,
  settings   jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Private keys are AES-256-GCM encrypted with MASTER_KEY (iv || tag || ciphertext).
-- The current key of an algorithm has retired_at NULL; a replaced key stays published
-- until expires_at, when every token it signed has expired.
CREATE TABLE signing_keys (
  realm                 text NOT NULL REFERENCES realms (name) ON DELETE CASCADE,
  kid                   text NOT NULL,
  alg                   text NOT NULL,
  public_jwk            jsonb NOT NULL,
  private_jwk_encrypted bytea NOT NULL,
  created_at            timestamptz NOT NULL DEFAULT now(),
  retired_at            timestamptz,
  expires_at            timestamptz,
  PRIMARY KEY (realm, kid)
);
CREATE UNIQUE INDEX signing_keys_current ON signing_keys (realm, alg) WHERE retired_at IS NULL;
CREATE INDEX signing_keys_expires_at ON signing_keys (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE scopes (
  realm       text NOT NULL REFERENCES realms (name) ON DELETE CASCADE,
  name        text NOT NULL,
  description text NOT NULL DEFAULT '',
  PRIMARY KEY (realm, name)
);

-- The client record (CONTRACT.md §5) is kept as validated JSON; the secret only as SHA-256.
CREATE TABLE clients (
  realm              text NOT NULL REFERENCES realms (name) ON DELETE CASCADE,
  client_id          text NOT NULL,
  client_secret_hash bytea,
  record             jsonb NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (realm, client_id)
);

CREATE TABLE users (
  realm         text NOT NULL REFERENCES realms (name) ON DELETE CASCADE,
  id            uuid NOT NULL DEFAULT gen_random_uuid(),
  username      text NOT NULL,
  password_hash text,
  claims        jsonb NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (realm, id)
);
CREATE UNIQUE INDEX users_username ON users (realm, lower(username));

-- Opaque tokens: only the SHA-256 of the value is stored. Tokens of one grant share grant_id,
-- so that one statement revokes all of them. A token dies with its client.
CREATE TABLE tokens (
  token_hash bytea PRIMARY KEY,
  realm      text NOT NULL,
  client_id  text NOT NULL,
  kind       text NOT NULL CHECK (kind IN ('access_token', 'refresh_token')),
  grant_id   uuid NOT NULL,
  grant_type text NOT NULL,
  subject    text NOT NULL,
  user_id    uuid,
  scope      text NOT NULL,
  issued_at  timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  FOREIGN KEY (realm, client_id) REFERENCES clients (realm, client_id) ON DELETE CASCADE
);
CREATE INDEX tokens_grant_id ON tokens (grant_id);
CREATE INDEX tokens_client ON tokens (realm, client_id);
CREATE INDEX tokens_expires_at ON tokens (expires_at);
