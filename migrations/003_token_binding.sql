-- Stateless (JWT) access tokens, client assertions, certificate-bound tokens.

-- RFC 8705 §3: the SHA-256 thumbprint of the client certificate a token is bound to.
ALTER TABLE tokens ADD COLUMN cnf_x5t_s256 text;

-- Revoked JWT access tokens (and grants whose JWT access tokens are revoked): denied until
-- the token would have expired, then cleaned up. Every instance keeps them in memory and
-- learns of new ones through NOTIFY.
CREATE TABLE revoked_jwts (
  realm      text NOT NULL,
  -- 'jti' for one token, 'grant' for every access token of a grant
  kind       text NOT NULL CHECK (kind IN ('jti', 'grant')),
  id         text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (realm, kind, id)
);
CREATE INDEX revoked_jwts_expires_at ON revoked_jwts (expires_at);

-- RFC 7523 §3 item 7: the jti of each client assertion, so that it is accepted once.
CREATE TABLE client_assertion_jtis (
  realm      text NOT NULL,
  client_id  text NOT NULL,
  jti        text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (realm, client_id, jti)
);
CREATE INDEX client_assertion_jtis_expires_at ON client_assertion_jtis (expires_at);
