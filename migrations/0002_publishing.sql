-- Publishing: immutable revisions of each domain's file, the domain's current one, and the last
-- outcome of writing it to each web root.

CREATE TABLE revisions (
    domain_id   bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    number      integer NOT NULL CHECK (number > 0),
    bytes       bytea NOT NULL,
    sha256      text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    actor_token uuid,
    actor_name  text NOT NULL,
    reason      text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    -- AASAModel's semantic diff against the previous revision (null for the first).
    diff        jsonb,
    -- Set when this revision republished an older one's bytes.
    rollback_of integer,
    PRIMARY KEY (domain_id, number)
);

-- Revisions are immutable: the database refuses to change one (deleting the domain removes them).
CREATE FUNCTION revisions_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'revisions are immutable' USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER revisions_no_update BEFORE UPDATE ON revisions
    FOR EACH ROW EXECUTE FUNCTION revisions_refuse_update();

ALTER TABLE domains
    ADD COLUMN current_revision integer,
    ADD COLUMN auto_publish boolean NOT NULL DEFAULT false,
    -- Also write `<root>/apple-app-site-association` (the path iOS 9–12 read first).
    ADD COLUMN legacy_root_path boolean NOT NULL DEFAULT false;

CREATE TABLE publish_targets (
    domain_id    bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    web_root     text NOT NULL,
    revision     integer NOT NULL,
    ok           boolean NOT NULL,
    error        text,
    attempted_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (domain_id, web_root)
);
