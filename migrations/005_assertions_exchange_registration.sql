-- Assertion grants (RFC 7521, 7522, 7523), token exchange (RFC 8693) and dynamic client
-- registration (RFC 7591, 7592).

-- Identity systems whose assertions (JWTs or SAML 2.0) this realm accepts. `record` holds the
-- validated rest: the keys (jwks or jwks_uri) or the certificate, how a subject maps to a
-- user, and which clients may present its assertions.
CREATE TABLE trusted_issuers (
  realm      text NOT NULL REFERENCES realms (name) ON DELETE CASCADE,
  id         uuid NOT NULL DEFAULT gen_random_uuid(),
  kind       text NOT NULL CHECK (kind IN ('jwt', 'saml2')),
  issuer     text NOT NULL,
  record     jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (realm, id),
  UNIQUE (realm, kind, issuer)
);

-- RFC 7523 §3 item 7, RFC 7522 §3 item 7 (the assertion's ID): each assertion is accepted
-- once, until it would have expired.
CREATE TABLE used_assertions (
  realm        text NOT NULL,
  issuer_id    uuid NOT NULL,
  assertion_id text NOT NULL,
  expires_at   timestamptz NOT NULL,
  PRIMARY KEY (realm, issuer_id, assertion_id)
);
CREATE INDEX used_assertions_expires_at ON used_assertions (expires_at);

-- RFC 7591 §3: what an admin hands out so that a client may register itself.
CREATE TABLE initial_access_tokens (
  token_hash bytea PRIMARY KEY,
  realm      text NOT NULL REFERENCES realms (name) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX initial_access_tokens_expires_at ON initial_access_tokens (expires_at);

-- RFC 7592 §1: the registration access token of a self-registered client, as SHA-256.
ALTER TABLE clients ADD COLUMN registration_token_hash bytea;

-- RFC 8693 §4.1: the actor of an exchanged token; RFC 8693 §2.1 audience and resource.
ALTER TABLE tokens
  ADD COLUMN act jsonb,
  ADD COLUMN aud jsonb;

-- A deleted person's JWT access tokens are denied by their user id, whatever grant issued them.
ALTER TABLE revoked_jwts DROP CONSTRAINT revoked_jwts_kind_check;
ALTER TABLE revoked_jwts ADD CONSTRAINT revoked_jwts_kind_check CHECK (kind IN ('jti', 'grant', 'person'));
