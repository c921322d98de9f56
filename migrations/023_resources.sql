-- Registered resources (CONTRACT.md §10, RFC 8707): the APIs of a realm that any of its clients
-- may ask tokens for with `resource`, by their identifier (an absolute URI without a fragment).
-- `scopes`: the scopes that mean something at the resource; an access token for it carries only
-- those of the scopes asked (NULL: any scope). See docs/resources.md.
CREATE TABLE resources (
  realm      text NOT NULL REFERENCES realms (name) ON DELETE CASCADE,
  identifier text NOT NULL,
  name       text,
  scopes     text[],
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (realm, identifier)
);

-- RFC 8707 §2.1: the resources an authorization request named; its code's exchange may narrow
-- them (§2.2) and the grant's refresh tokens keep them all. NULL: the request named none.
ALTER TABLE authorization_codes ADD COLUMN resources text[];

-- The resources a person allowed a client, beside its scopes: a request that names a resource
-- the person has not allowed this client asks for consent again.
ALTER TABLE consents ADD COLUMN resources text[] NOT NULL DEFAULT '{}';
