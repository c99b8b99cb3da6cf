-- Issue 53: people sign in to the console through the organisation's OpenID provider, and the
-- groups it names decide what they may do.

-- Which provider group gives what: a team with `read` or `write`, or the organisation `admin`
-- (no team). Several groups add up. One list for the organisation, replaced whole with If-Match
-- on `console_mapping_versions.version`.
CREATE TABLE console_group_mappings (
    position   integer NOT NULL PRIMARY KEY,
    provider   text NOT NULL CHECK (provider ~ '^[a-z0-9][a-z0-9-]{0,31}$'),
    group_name text NOT NULL CHECK (length(group_name) BETWEEN 1 AND 256),
    team_id    bigint REFERENCES teams (id) ON DELETE CASCADE,
    role       text NOT NULL CHECK (role IN ('read', 'write', 'admin')),
    CHECK ((role = 'admin') = (team_id IS NULL))
);
CREATE INDEX console_group_mappings_group ON console_group_mappings (provider, group_name);

CREATE TABLE console_mapping_versions (
    only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    version    bigint NOT NULL DEFAULT 1,
    updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO console_mapping_versions DEFAULT VALUES;

-- A sign-in under way, from the redirect to the provider until its answer comes back (ten minutes
-- at most). Found by the SHA-256 of `state` and taken once: a replayed answer finds nothing. The
-- browser that started it holds a random cookie whose SHA-256 is `binding_hash`; the PKCE
-- verifier is derived from that cookie, so nothing here lets anyone redeem a code.
CREATE TABLE console_oidc_logins (
    state_hash   bytea PRIMARY KEY CHECK (length(state_hash) = 32),
    binding_hash bytea NOT NULL CHECK (length(binding_hash) = 32),
    nonce_hash   bytea NOT NULL CHECK (length(nonce_hash) = 32),
    provider     text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_oidc_logins_age ON console_oidc_logins (created_at);

-- A console session made through a provider: who it is (as the audit names them), the tokens made
-- for the person at sign-in (one per team they may act for; the session speaks as one of them),
-- and the ID token, kept only for the provider's logout (`id_token_hint`) and deleted with the row.
ALTER TABLE console_sessions
    ADD COLUMN provider  text,
    ADD COLUMN person    text,
    ADD COLUMN token_ids uuid[] NOT NULL DEFAULT '{}',
    ADD COLUMN id_token  text;
