-- A denial covers the JWT access tokens issued up to `issued_until`, to the millisecond that
-- their `jti` carries (src/tokens/jti.ts). 'infinity' is every one: a token, a grant, an ended
-- session, a deleted person. A person whose password changed, who was reset or disabled has one
-- 'person' row whose `issued_until` is the moment of that change, so that the JWTs of grants
-- that wrote no row die with it and those issued later live (CONTRACT.md §7); a deletion raises
-- it to 'infinity'.
ALTER TABLE revoked_jwts ADD COLUMN issued_until timestamptz NOT NULL DEFAULT 'infinity';
