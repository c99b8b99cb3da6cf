-- Teams, tokens, apps, domains, grants, rules, the order of apps, the audit trail and
-- idempotency records. Every mutable row has a `version` that the API shows as its ETag.

CREATE TABLE teams (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name         text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    display_name text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    version      bigint NOT NULL DEFAULT 1
);

-- A token without a team is an organisation admin token (made by `aasad token create --admin`).
-- Only the SHA-256 of the secret is kept.
CREATE TABLE tokens (
    id           uuid PRIMARY KEY,
    team_id      bigint REFERENCES teams (id) ON DELETE CASCADE,
    name         text NOT NULL,
    scopes       text[] NOT NULL CHECK (scopes <@ ARRAY['admin', 'write', 'read'] AND cardinality(scopes) > 0),
    secret_hash  bytea NOT NULL CHECK (length(secret_hash) = 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz,
    revoked_at   timestamptz,
    last_used_at timestamptz
);
CREATE INDEX tokens_team ON tokens (team_id);

CREATE TABLE apps (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id     text NOT NULL UNIQUE,
    team_id    bigint NOT NULL REFERENCES teams (id) ON DELETE RESTRICT,
    services   text[] NOT NULL
               CHECK (services <@ ARRAY['applinks', 'webcredentials', 'appclips', 'activitycontinuation']),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    version    bigint NOT NULL DEFAULT 1
);
CREATE INDEX apps_team ON apps (team_id);

CREATE TABLE domains (
    id                     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    host                   text NOT NULL UNIQUE,
    substitution_variables jsonb NOT NULL DEFAULT '{}',
    defaults               jsonb NOT NULL DEFAULT '{}',
    web_roots              text[] NOT NULL DEFAULT '{}',
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    version                bigint NOT NULL DEFAULT 1,
    -- The explicit order of apps on the domain, versioned on its own so that editing the domain
    -- and reordering its apps do not invalidate each other's ETags.
    app_order              text[] NOT NULL DEFAULT '{}',
    order_version          bigint NOT NULL DEFAULT 1
);

-- Every name a domain answers to, its own host included: a host or alias belongs to one domain.
CREATE TABLE domain_hosts (
    host       text PRIMARY KEY,
    domain_id  bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    is_primary boolean NOT NULL
);
CREATE INDEX domain_hosts_domain ON domain_hosts (domain_id);

CREATE TABLE grants (
    domain_id     bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    team_id       bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    path_prefixes text[] NOT NULL CHECK (cardinality(path_prefixes) > 0),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    version       bigint NOT NULL DEFAULT 1,
    PRIMARY KEY (domain_id, team_id)
);

-- One app's ordered components on one domain, replaced as a whole: a JSON array of
-- {"id": uuid, "component": {...}} so the order and the rule IDs travel together.
CREATE TABLE rule_sets (
    domain_id  bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    app_id     bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    rules      jsonb NOT NULL CHECK (jsonb_typeof(rules) = 'array'),
    updated_at timestamptz NOT NULL DEFAULT now(),
    version    bigint NOT NULL DEFAULT 1,
    PRIMARY KEY (domain_id, app_id)
);
CREATE INDEX rule_sets_app ON rule_sets (app_id);

-- The audit trail keeps names, not foreign keys: it outlives what it describes.
CREATE TABLE audit_events (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at           timestamptz NOT NULL DEFAULT clock_timestamp(),
    actor_token  uuid,
    actor_name   text NOT NULL,
    actor_team   text,
    team         text,
    domain       text,
    app_id       text,
    action       text NOT NULL,
    entity_type  text NOT NULL,
    entity_id    text NOT NULL,
    before       jsonb,
    after        jsonb,
    request_id   text
);
CREATE INDEX audit_events_team ON audit_events (team, id);
CREATE INDEX audit_events_domain ON audit_events (domain, id);
CREATE INDEX audit_events_app ON audit_events (app_id, id);
CREATE INDEX audit_events_actor ON audit_events (actor_token, id);
CREATE INDEX audit_events_at ON audit_events (at);

-- Append-only in the database itself, whatever the application does.
CREATE FUNCTION audit_events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER audit_events_no_update BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_refuse_change();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION audit_events_refuse_change();

-- The first answer to a POST carrying an Idempotency-Key, per token. `status` is NULL while the
-- first request is still running.
CREATE TABLE idempotency_keys (
    token_id     uuid NOT NULL,
    key          text NOT NULL,
    fingerprint  bytea NOT NULL,
    status       integer,
    content_type text,
    etag         text,
    location     text,
    body         bytea,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (token_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
