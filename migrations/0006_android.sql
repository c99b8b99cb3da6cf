-- Android (issue 16). An app of a team is an iOS app (an app ID) or an Android app (a package
-- name with the SHA-256 fingerprints of its signing certificates: upload key, Play App Signing
-- key, debug key). Android has two services: applinks (handle_all_urls, with the app's rules as
-- dynamic_app_link_components) and webcredentials (get_login_creds).
ALTER TABLE apps
    ADD COLUMN platform text NOT NULL DEFAULT 'ios' CHECK (platform IN ('ios', 'android')),
    ADD COLUMN fingerprints text[] NOT NULL DEFAULT '{}',
    -- One rule list for both platforms: an Android app may follow an iOS app of its team, and is
    -- then rendered on every domain with that app's rules (it has none of its own).
    ADD COLUMN rules_from bigint REFERENCES apps (id) ON DELETE RESTRICT,
    ADD CONSTRAINT apps_platform_shape CHECK (
        (platform = 'ios' AND cardinality(fingerprints) = 0 AND rules_from IS NULL)
        OR (platform = 'android' AND cardinality(fingerprints) BETWEEN 1 AND 20
            AND services <@ ARRAY['applinks', 'webcredentials']));

-- Each domain's assetlinks.json has its own revision stream, beside the AASA's `revisions`: the
-- newest is the current one (a rollback is a new revision with `rollback_of`), so the two files
-- are published, rolled back and served independently.
CREATE TABLE assetlinks_revisions (
    domain_id   bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    number      integer NOT NULL CHECK (number > 0),
    bytes       bytea NOT NULL,
    sha256      text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    actor_token uuid,
    actor_name  text NOT NULL,
    reason      text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    rollback_of integer,
    PRIMARY KEY (domain_id, number)
);
CREATE TRIGGER assetlinks_revisions_no_update BEFORE UPDATE ON assetlinks_revisions
    FOR EACH ROW EXECUTE FUNCTION revisions_refuse_update();
