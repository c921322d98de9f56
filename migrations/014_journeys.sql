-- Authentication journeys (CONTRACT.md §8): a realm's stored journeys by name. They live in the
-- realm's row, so that the realm cache (invalidated across instances) carries them to every
-- sign-in without a query of their own.
ALTER TABLE realms ADD COLUMN journeys jsonb NOT NULL DEFAULT '{}'::jsonb;

-- The acr of the journey a sign-in walked, carried as amr is: from the session into codes,
-- approved device and CIBA requests, and the tokens whose ID tokens a refresh re-issues.
-- Rows written before this migration have none: "0", the acr of no mapping.
ALTER TABLE sessions ADD COLUMN journey text, ADD COLUMN acr text;
ALTER TABLE authorization_codes ADD COLUMN acr text;
ALTER TABLE pending_authorizations ADD COLUMN acr text;
ALTER TABLE tokens ADD COLUMN acr text;
