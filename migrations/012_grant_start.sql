-- When each token's grant began: the issuance of its first token. Every token of a grant carries
-- it, so that a refresh caps its tokens at the realm's grant_max_lifetime from it (CONTRACT.md §5).
-- Tokens written before this migration take the earliest issuance of their grant still stored.
ALTER TABLE tokens ADD COLUMN grant_started_at timestamptz;
UPDATE tokens t SET grant_started_at = g.started_at
  FROM (SELECT grant_id, min(issued_at) AS started_at FROM tokens GROUP BY grant_id) g
 WHERE t.grant_id = g.grant_id;
