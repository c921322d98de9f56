-- A realm's own words for its pages and mails (`PUT /admin/realms/{realm}/texts/{locale}`,
-- CONTRACT.md §16): by language, the catalogue keys an admin overrode and their texts, e.g.
-- {"de": {"signIn.title": "Willkommen"}}. Kept with the realm's row so that every instance
-- reads them, and drops them, with the realm (src/store/cache.ts).
ALTER TABLE realms ADD COLUMN texts jsonb NOT NULL DEFAULT '{}';
