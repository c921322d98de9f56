-- A refresh token's rotation in one round trip (src/store/tokens.ts rotateMany): the lock of the
-- people behind the presented tokens (FOR KEY SHARE), then, in a statement of its own, the use of
-- the tokens, their successors and the events of their issuance. In a VOLATILE function under
-- READ COMMITTED each statement takes its own snapshot, so the rotation sees whatever ended the
-- people's grants while the lock waited, as when the two statements were sent one by one in a
-- transaction; called alone, the call commits both. The body is ROTATION_FUNCTION_BODY of
-- src/store/token-statements.ts, which explains it; test/store/rotation-function.test.ts checks
-- that they agree. The parameters, by number: the presented tokens' hashes (hex), realms and
-- clients; the successors' columns (INSERTED_COLUMNS) and the presented token each succeeds;
-- the events' columns (insertAuditEvents) and the presented token each tells of.
CREATE FUNCTION rotate_refresh_tokens(
  text[], text[], text[], text[], text[], text[], text[], text[], text[], text[],
  text[], text[], text[], text[], text[], text[], text[], text[], text[], text[],
  text[], text[], text[], text[], text[], text[], text[], text[], text[], text[],
  text[], text[], text[], text[], text[], text[], text[]
) RETURNS TABLE (n int, person users) LANGUAGE plpgsql VOLATILE AS $rotation$
#variable_conflict use_column
BEGIN
  PERFORM 1 FROM users u
   WHERE (u.realm, u.id) IN (SELECT t.realm, t.user_id FROM tokens t
                              WHERE t.token_hash = ANY (ARRAY(SELECT decode(h, 'hex') FROM unnest($1::text[]) AS h)))
     FOR KEY SHARE OF u;
  RETURN QUERY WITH used AS (
    UPDATE tokens t SET used_at = now()
      FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS p(hash, realm, client_id, n), users u
     WHERE t.token_hash = decode(p.hash, 'hex') AND (t.realm, t.client_id) IS NOT DISTINCT FROM (p.realm, p.client_id)
       AND t.kind = 'refresh_token'
       AND t.used_at IS NULL AND t.revoked_at IS NULL AND t.expires_at > now() AND EXISTS (SELECT 1 FROM clients c
                                WHERE c.realm = t.realm AND c.client_id = t.client_id AND c.internal_id = t.client_internal_id)
       AND u.realm = t.realm AND u.id = t.user_id AND u.enabled
    RETURNING p.n::int AS n, u AS person
  ),
  successors AS (
  INSERT INTO tokens (token_hash, realm, client_id, client_internal_id, kind, grant_id, grant_started_at, grant_type, subject,
                      user_id, scope, issued_at, expires_at, auth_time, amr, acr, sid, cnf_x5t_s256, act, aud, cnf_jkt, asked_claims, authorization_details)
  SELECT decode(hash, 'hex'), realm, client_id, client_internal_id::bigint, kind, grant_id::uuid, to_timestamp(grant_started_at::float8 / 1000),
         grant_type, subject,
         user_id::uuid, scope, to_timestamp(issued_at::float8 / 1000), to_timestamp(expires_at::float8 / 1000), to_timestamp(auth_time::float8 / 1000),
         string_to_array(amr, ' '), acr, sid::uuid, cnf, act::jsonb, aud::jsonb, jkt, asked_claims::jsonb, authorization_details::jsonb
    FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::text[], $21::text[], $22::text[], $23::text[], $24::text[], $25::text[], $26::text[], $27::text[], $28::text[]) AS t(hash, realm, client_id, client_internal_id, kind, grant_id, grant_started_at, grant_type, subject, user_id, scope, issued_at, expires_at, auth_time, amr, acr, sid, cnf, act, aud, jkt, asked_claims, authorization_details, password_of, successor_of)
   WHERE (t.user_id IS NULL OR EXISTS (SELECT 1 FROM users u WHERE u.realm = t.realm AND u.id = t.user_id::uuid AND u.enabled
                                         AND (t.password_of IS NULL OR encode(sha256(convert_to(u.password_hash, 'UTF8')), 'hex') = t.password_of)
                                         FOR KEY SHARE))
         AND successor_of::int IN (SELECT n FROM used)
  RETURNING grant_id),
  events AS (
  INSERT INTO audit_events (realm, occurred_at, type, client_id, user_id, address, details, expires_at)
  SELECT realm, to_timestamp(occurred_at::float8 / 1000), type, client_id, user_id, address, details::jsonb, to_timestamp(expires_at::float8 / 1000)
    FROM unnest($29::text[], $30::text[], $31::text[], $32::text[], $33::text[], $34::text[], $35::text[], $36::text[], $37::text[]) AS e(realm, occurred_at, type, client_id, user_id, address, details, expires_at, event_of) WHERE event_of::int IN (SELECT n FROM used))
  SELECT n, person FROM used;
END;
$rotation$;
