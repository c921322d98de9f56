-- The language a person chose follows them (CONTRACT.md §16): a sign-in in progress keeps the
-- language its pages' picker chose (over its request's `ui_locales`), and a session keeps the
-- language its sign-in was in, or that a page's picker chose since, for the pages that come
-- after it (account, device, CIBA approval). A BCP 47 primary tag the pages ship in; none
-- leaves the choice to the request (`ui_locales`, then `Accept-Language`).
ALTER TABLE sessions ADD COLUMN locale text;
ALTER TABLE authorization_transactions ADD COLUMN locale text;

-- A scope's text per language (`descriptions: {"en": …, "de": …, "fr": …}` beside
-- `description`, CONTRACT.md §16): the consent page shows the person's, else `description`.
ALTER TABLE scopes ADD COLUMN descriptions jsonb NOT NULL DEFAULT '{}';

-- A registered resource's name per language (`descriptions`, CONTRACT.md §16): the consent page
-- calls it by the person's, else by its `name`, else by its identifier.
ALTER TABLE resources ADD COLUMN descriptions jsonb;
