-- Roles and groups of a realm (CONTRACT.md §10). A person's roles are their own and their
-- groups'. Every link carries the realm, and its foreign keys name the realm with the row, so
-- that a role or group of one realm can never be linked to a person or group of another.
-- Deleting a role removes it from every group and person in the same statement (as Keycloak
-- does); deleting a group removes its members' membership; deleting a person, theirs.
CREATE TABLE roles (
  realm       text NOT NULL REFERENCES realms (name) ON DELETE CASCADE,
  name        text NOT NULL,
  description text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (realm, name)
);

CREATE TABLE groups (
  realm       text NOT NULL REFERENCES realms (name) ON DELETE CASCADE,
  name        text NOT NULL,
  description text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (realm, name)
);

CREATE TABLE group_roles (
  realm      text NOT NULL,
  group_name text NOT NULL,
  role       text NOT NULL,
  PRIMARY KEY (realm, group_name, role),
  FOREIGN KEY (realm, group_name) REFERENCES groups (realm, name) ON DELETE CASCADE,
  FOREIGN KEY (realm, role) REFERENCES roles (realm, name) ON DELETE CASCADE
);
CREATE INDEX group_roles_role ON group_roles (realm, role);

CREATE TABLE user_roles (
  realm   text NOT NULL,
  user_id uuid NOT NULL,
  role    text NOT NULL,
  PRIMARY KEY (realm, user_id, role),
  FOREIGN KEY (realm, user_id) REFERENCES users (realm, id) ON DELETE CASCADE,
  FOREIGN KEY (realm, role) REFERENCES roles (realm, name) ON DELETE CASCADE
);
CREATE INDEX user_roles_role ON user_roles (realm, role);

CREATE TABLE user_groups (
  realm      text NOT NULL,
  user_id    uuid NOT NULL,
  group_name text NOT NULL,
  PRIMARY KEY (realm, user_id, group_name),
  FOREIGN KEY (realm, user_id) REFERENCES users (realm, id) ON DELETE CASCADE,
  FOREIGN KEY (realm, group_name) REFERENCES groups (realm, name) ON DELETE CASCADE
);
CREATE INDEX user_groups_group ON user_groups (realm, group_name);

-- Claims a scope releases beyond OpenID Connect's standard ones: [{name, source, tokens}]
-- (src/tokens/scope-claims.ts), validated by the admin API.
ALTER TABLE scopes ADD COLUMN claims jsonb NOT NULL DEFAULT '[]';
