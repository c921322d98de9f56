-- OpenID Connect Core §5.5: the names of the claims a request's `claims` parameter asked for,
-- per destination (`{"userinfo": [...], "id_token": [...]}`), kept with its code and then with
-- the grant's tokens, so that the ID token of the exchange (and of each refresh) and UserInfo
-- release them where they were asked, as far as the granted scopes allow. NULL: none asked.
ALTER TABLE authorization_codes ADD COLUMN asked_claims jsonb;
ALTER TABLE tokens ADD COLUMN asked_claims jsonb;
