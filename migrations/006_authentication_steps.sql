-- Authentication per realm: one-time codes (RFC 6238), recovery codes, passkeys (WebAuthn),
-- the devices and addresses a person signed in from (the risk step), and the progress of a
-- sign-in through the realm's steps.

-- A person's TOTP secret, encrypted with MASTER_KEY (it must be read back to check codes).
-- It counts once confirmed: by a first code, or at once when an admin enrols it. `last_step`
-- is the time step of the last accepted code, so that no code is accepted twice.
CREATE TABLE user_totp (
  realm            text NOT NULL,
  user_id          uuid NOT NULL,
  secret_encrypted bytea NOT NULL,
  confirmed_at     timestamptz,
  last_step        bigint,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (realm, user_id),
  FOREIGN KEY (realm, user_id) REFERENCES users (realm, id) ON DELETE CASCADE
);

-- Single-use recovery codes, stored as SHA-256.
CREATE TABLE recovery_codes (
  realm     text NOT NULL,
  user_id   uuid NOT NULL,
  code_hash bytea NOT NULL,
  used_at   timestamptz,
  PRIMARY KEY (realm, user_id, code_hash),
  FOREIGN KEY (realm, user_id) REFERENCES users (realm, id) ON DELETE CASCADE
);

-- WebAuthn credentials (passkeys) registered by a person.
CREATE TABLE passkeys (
  credential_id bytea PRIMARY KEY,
  realm         text NOT NULL,
  user_id       uuid NOT NULL,
  public_key    bytea NOT NULL,
  counter       bigint NOT NULL,
  transports    text[] NOT NULL DEFAULT '{}',
  backed_up     boolean NOT NULL,
  name          text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  FOREIGN KEY (realm, user_id) REFERENCES users (realm, id) ON DELETE CASCADE
);
CREATE INDEX passkeys_user ON passkeys (realm, user_id);

-- WebAuthn challenges, each for one ceremony, by the SHA-256 of the id a form carries.
CREATE TABLE webauthn_challenges (
  id_hash    bytea PRIMARY KEY,
  realm      text NOT NULL,
  user_id    uuid,
  challenge  text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX webauthn_challenges_expires_at ON webauthn_challenges (expires_at);

-- Where a person signed in from: a device (the SHA-256 of a long-lived cookie) or an address.
-- The risk step asks for more when either is new for the person.
CREATE TABLE known_sign_in_sources (
  realm        text NOT NULL,
  user_id      uuid NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('device', 'address')),
  value        text NOT NULL,
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (realm, user_id, kind, value),
  FOREIGN KEY (realm, user_id) REFERENCES users (realm, id) ON DELETE CASCADE
);
CREATE INDEX known_sign_in_sources_last_seen_at ON known_sign_in_sources (last_seen_at);

-- How far a sign-in has come through the realm's steps: who, which methods passed.
ALTER TABLE authorization_transactions ADD COLUMN progress jsonb;

-- Signing out denies the JWT access tokens that carry the session's sid, whatever their grant.
ALTER TABLE revoked_jwts DROP CONSTRAINT revoked_jwts_kind_check;
ALTER TABLE revoked_jwts ADD CONSTRAINT revoked_jwts_kind_check CHECK (kind IN ('jti', 'grant', 'person', 'session'));
