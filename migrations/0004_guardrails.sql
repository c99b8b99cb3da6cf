-- Golden URLs and organisation guardrails (issue 13): each team's expectations of a domain, the
-- admin-owned guardrails, suspensions (the kill switch), and the overrides a revision carries.

-- A URL on a domain and what must happen to it. `holds_in_draft` / `holds_when_published` are
-- the promise as it stands: true from registration on, false only after an admin forced a change
-- that broke it. A change is refused when it turns a holding expectation false. `draft_app` and
-- `published_app` are what the last evaluation saw open the URL (null: no app), for the
-- "opens now" of a refusal.
CREATE TABLE expectations (
    id                   uuid PRIMARY KEY,
    domain_id            bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    team_id              bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    url                  text NOT NULL,
    kind                 text NOT NULL CHECK (kind IN ('opens', 'opensNone', 'notApp')),
    app_id               text CHECK ((kind = 'opensNone') = (app_id IS NULL)),
    source               text NOT NULL CHECK (source IN ('draft', 'published')),
    description          text,
    version              bigint NOT NULL DEFAULT 1,
    holds_in_draft       boolean NOT NULL DEFAULT true,
    holds_when_published boolean NOT NULL DEFAULT true,
    draft_app            text,
    published_app        text,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX expectations_domain ON expectations (domain_id, created_at, id);
CREATE UNIQUE INDEX expectations_unique ON expectations (domain_id, team_id, url, kind, coalesce(app_id, ''));

-- Guardrails: one global row (domain_id null) and at most one per domain. Protected path
-- patterns add up; of two budgets the smaller applies.
CREATE TABLE guardrails (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    domain_id          bigint UNIQUE REFERENCES domains (id) ON DELETE CASCADE,
    protected_paths    text[] NOT NULL DEFAULT '{}',
    max_rules_per_team integer CHECK (max_rules_per_team > 0),
    max_bytes_per_team integer CHECK (max_bytes_per_team > 0),
    version            bigint NOT NULL DEFAULT 1,
    updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX guardrails_one_global ON guardrails ((domain_id IS NULL)) WHERE domain_id IS NULL;

-- The kill switch: a suspended team's apps leave the rendered file of one domain (or of every
-- domain: domain_id null) until resumed. Its stored rules are untouched.
CREATE TABLE suspensions (
    team_id    bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    domain_id  bigint REFERENCES domains (id) ON DELETE CASCADE,
    reason     text NOT NULL,
    created_by text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX suspensions_scope ON suspensions (team_id, coalesce(domain_id, 0));

-- The admin overrides (`force` with a reason) made since the previous revision, shown with it.
ALTER TABLE revisions ADD COLUMN overrides jsonb NOT NULL DEFAULT '[]';

-- A domain's expectations as a whole have a version, bumped by every write to them (a trigger, so
-- no write path can forget it): servers keep a domain's expectations in memory under it and read
-- the table again only when it moves. Drawn from a sequence, never reused: a version seen in a
-- transaction that rolled back never names other contents later.
CREATE SEQUENCE expectation_versions;
ALTER TABLE domains ADD COLUMN expectations_version bigint NOT NULL DEFAULT 0;
CREATE FUNCTION expectations_touch_domain() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE domains SET expectations_version = nextval('expectation_versions')
    WHERE id IN (SELECT domain_id FROM changed_rows);
    RETURN NULL;
END
$$;
CREATE TRIGGER expectations_inserted AFTER INSERT ON expectations
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION expectations_touch_domain();
CREATE TRIGGER expectations_updated AFTER UPDATE ON expectations
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION expectations_touch_domain();
CREATE TRIGGER expectations_deleted AFTER DELETE ON expectations
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION expectations_touch_domain();

-- Protected-path openings an admin forced through (pattern, app): they stop blocking other
-- changes to the domain for as long as they last, and lapse as soon as a change closes them.
CREATE TABLE protected_path_exemptions (
    domain_id bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    pattern   text NOT NULL,
    app_id    text NOT NULL,
    PRIMARY KEY (domain_id, pattern, app_id)
);
