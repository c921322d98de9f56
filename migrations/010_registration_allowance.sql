-- What an initial access token allows beyond the realm's registration policy (CONTRACT.md §5):
-- {grant_types, scope}; NULL allows nothing more.
ALTER TABLE initial_access_tokens ADD COLUMN allowance jsonb;

-- The allowance of the initial access token that registered the client, so that its updates
-- (RFC 7592 §2.2) are judged against what its registration was allowed. NULL for clients an
-- admin created, registered without such a token, or registered before this column.
ALTER TABLE clients ADD COLUMN registration_allowance jsonb;
