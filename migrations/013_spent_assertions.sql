-- One store of spent assertion ids (RFC 7523 §3 item 7, RFC 7522 §3 item 7), keyed by the
-- issuer the assertion names: a client's client_id for its client assertions and CIBA request
-- objects, a trusted JWT issuer's `issuer`, a SAML issuer's id. It replaces the per-client
-- client_assertion_jtis and the per-trusted-issuer used_assertions; their live rows move over.
CREATE TABLE spent_assertions (
  realm      text NOT NULL,
  issuer     text NOT NULL,
  id         text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (realm, issuer, id)
);
CREATE INDEX spent_assertions_expires_at ON spent_assertions (expires_at);

INSERT INTO spent_assertions (realm, issuer, id, expires_at)
SELECT realm, client_id, jti, expires_at FROM client_assertion_jtis WHERE expires_at >= now();

INSERT INTO spent_assertions (realm, issuer, id, expires_at)
SELECT used.realm, CASE WHEN trusted.kind = 'jwt' THEN trusted.issuer ELSE used.issuer_id::text END, used.assertion_id, used.expires_at
  FROM used_assertions used
  LEFT JOIN trusted_issuers trusted ON trusted.realm = used.realm AND trusted.id = used.issuer_id
 WHERE used.expires_at >= now()
ON CONFLICT (realm, issuer, id) DO UPDATE SET expires_at = GREATEST(spent_assertions.expires_at, EXCLUDED.expires_at);

DROP TABLE client_assertion_jtis;
DROP TABLE used_assertions;
