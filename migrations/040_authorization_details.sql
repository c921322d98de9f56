-- RFC 9396 (CONTRACT.md §13): the authorization details a grant carries, as the person consented
-- to them (or, for client credentials, as the client asked): kept with the code, then with the
-- grant's tokens. A token request may narrow them for its access token; the refresh token keeps
-- the whole grant's. NULL: none.
ALTER TABLE authorization_codes ADD COLUMN authorization_details jsonb;
ALTER TABLE tokens ADD COLUMN authorization_details jsonb;
