-- Flows where the device that wants the token is not the one the person uses: the device
-- authorization grant (RFC 8628) and client-initiated backchannel authentication (CIBA).

-- One row per device code or CIBA auth_req_id, polled by its client at the token endpoint
-- until the person allows or denies, or it expires. `status` moves pending → approved or
-- denied, then approved → issued by the one poll that receives the tokens.
CREATE TABLE pending_authorizations (
  secret_hash      bytea PRIMARY KEY,          -- SHA-256 of the device_code or auth_req_id
  id               uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(), -- names the request on pages
  kind             text NOT NULL CHECK (kind IN ('device', 'ciba')),
  realm            text NOT NULL,
  client_id        text NOT NULL,
  scope            text NOT NULL,
  -- device: what the person types, normalised (upper case, no dash)
  user_code        text UNIQUE,
  -- ciba: the person asked; device: the person who answered
  user_id          uuid,
  binding_message  text,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'denied', 'issued')),
  -- RFC 8628 §3.5: grows by 5 s at each poll that comes too soon
  interval_seconds integer NOT NULL,
  last_polled_at   timestamptz,
  sid              uuid,
  auth_time        timestamptz,
  amr              text[],
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  FOREIGN KEY (realm, client_id) REFERENCES clients (realm, client_id) ON DELETE CASCADE,
  FOREIGN KEY (realm, user_id) REFERENCES users (realm, id) ON DELETE CASCADE
);
CREATE INDEX pending_authorizations_user ON pending_authorizations (realm, user_id) WHERE status = 'pending';
CREATE INDEX pending_authorizations_expires_at ON pending_authorizations (expires_at);

-- Failed attempts in a fixed window, by key (which names the realm, what is counted and
-- whose attempts they are), shared by every instance.
CREATE TABLE attempt_counters (
  key            text PRIMARY KEY,
  failures       integer NOT NULL,
  window_ends_at timestamptz NOT NULL
);
CREATE INDEX attempt_counters_window_ends_at ON attempt_counters (window_ends_at);

-- A sign-in in progress now serves more than /authorize: the device page and the CIBA
-- approval page sign people in too. `kind` says what the transaction continues with.
ALTER TABLE authorization_transactions
  ADD COLUMN kind text NOT NULL DEFAULT 'authorize' CHECK (kind IN ('authorize', 'device', 'sign-in')),
  ALTER COLUMN client_id DROP NOT NULL;

-- A CIBA login_hint_token may name the person by email (src/requests/login-hint-token.ts).
CREATE INDEX users_email ON users (realm, lower(claims->>'email'));
