-- DPoP (RFC 9449): sender-constrained tokens bound to a key the client proves it holds.

-- RFC 9449 §6: the JWK SHA-256 thumbprint (RFC 7638, base64url) of the key a token is bound to
-- (`cnf.jkt`), beside the certificate binding of migrations/003_token_binding.sql. A public
-- client's refresh token carries it too (§5); a confidential client's is bound by its
-- authentication and carries none.
ALTER TABLE tokens ADD COLUMN cnf_jkt text;

-- RFC 9449 §10: `dpop_jkt` of the authorization request; the code is exchanged only with a
-- proof of that key.
ALTER TABLE authorization_codes ADD COLUMN dpop_jkt text;
