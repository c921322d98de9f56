-- Sign-in through another OpenID provider (CONTRACT.md §10): a realm's upstream providers by
-- alias. The client secret is stored encrypted under MASTER_KEY (AES-256-GCM, the realm and
-- alias authenticated with it), never as plain text; the rest of the record is `record`.
CREATE TABLE identity_providers (
  realm         text NOT NULL REFERENCES realms (name) ON DELETE CASCADE,
  alias         text NOT NULL,
  record        jsonb NOT NULL,
  client_secret bytea NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (realm, alias)
);

-- An upstream account, (provider, subject), linked to a person of the realm. A person may have
-- several; a link goes with its person and with its provider.
CREATE TABLE user_identities (
  realm      text NOT NULL,
  provider   text NOT NULL,
  subject    text NOT NULL,
  user_id    uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (realm, provider, subject),
  FOREIGN KEY (realm, user_id) REFERENCES users (realm, id) ON DELETE CASCADE,
  FOREIGN KEY (realm, provider) REFERENCES identity_providers (realm, alias) ON DELETE CASCADE
);
CREATE INDEX user_identities_user ON user_identities (realm, user_id);

-- An upstream code flow in progress, by the SHA-256 of its `state`: the sign-in transaction it
-- continues, the PKCE verifier and the nonce, sealed under MASTER_KEY. Taken once, short-lived.
CREATE TABLE broker_states (
  state_hash bytea PRIMARY KEY,
  realm      text NOT NULL REFERENCES realms (name) ON DELETE CASCADE,
  provider   text NOT NULL,
  sealed     bytea NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX broker_states_expires_at ON broker_states (expires_at);
