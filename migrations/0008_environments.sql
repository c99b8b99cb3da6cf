-- Environments (issue 25). An organisation's environments in promotion order (dev → staging →
-- prod): the last is production. Every domain belongs to one; the domains from before this
-- migration all belong to `default`, the only environment, so no served byte changes.
CREATE TABLE environments (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9][a-z0-9-]{0,31}$'),
    position   integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO environments (name, position) VALUES ('default', 0);

-- A new domain names its environment; while the organisation has one, that one is the default.
CREATE FUNCTION only_environment() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN count(*) = 1 THEN min(id) END FROM environments
$$;
ALTER TABLE domains ADD COLUMN environment_id bigint REFERENCES environments (id) ON DELETE RESTRICT;
UPDATE domains SET environment_id = (SELECT id FROM environments WHERE name = 'default');
ALTER TABLE domains ALTER COLUMN environment_id SET NOT NULL,
    ALTER COLUMN environment_id SET DEFAULT only_environment();
CREATE INDEX domains_environment ON domains (environment_id);

-- One app, many builds: the identity an app has in one environment (the iOS app ID or Android
-- package of that build) and, for Android, its signing certificates, each with a label
-- (`play-signing`, `upload`, `debug`, or the team's own word). An app with no builds renders as
-- itself everywhere, as before; an app with builds renders, on a domain, as its build for the
-- domain's environment. `identity` is unique across every build: one app ID is one build.
CREATE TABLE app_builds (
    app_id              bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    environment_id      bigint NOT NULL REFERENCES environments (id) ON DELETE RESTRICT,
    identity            text NOT NULL UNIQUE,
    fingerprints        jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(fingerprints) = 'array'),
    -- An Android build in production without a `play-signing` fingerprint, acknowledged.
    play_signing_absent boolean NOT NULL DEFAULT false,
    PRIMARY KEY (app_id, environment_id)
);
CREATE INDEX app_builds_environment ON app_builds (environment_id);

-- A revision made by a promotion names the revision of the source environment's domain it took
-- its rules from.
ALTER TABLE revisions ADD COLUMN promoted_from_host text, ADD COLUMN promoted_from_revision integer;
