-- Passkeys (issue 52). A domain's third managed file, `/.well-known/webauthn` (WebAuthn's Related
-- Origin Requests): the other web origins that may use the domain as their relying party ID.
-- Each origin is added by a team holding a grant with `webcredentials` on the domain (team_id set)
-- or by an admin (team_id NULL); the set is checked whole (https, no path, no duplicate, at most
-- five registrable-domain labels) before it is written.
CREATE TABLE related_origins (
    domain_id  bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    origin     text NOT NULL CHECK (origin ~ '^https://[a-z0-9.-]+(:[0-9]{1,5})?$'),
    team_id    bigint REFERENCES teams (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (domain_id, origin)
);

-- The file's own revision stream, beside the AASA's and assetlinks.json's: the newest is current.
CREATE TABLE webauthn_revisions (
    domain_id                  bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    number                     integer NOT NULL CHECK (number > 0),
    bytes                      bytea NOT NULL,
    sha256                     text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    actor_token                uuid,
    actor_name                 text NOT NULL,
    reason                     text NOT NULL,
    created_at                 timestamptz NOT NULL DEFAULT now(),
    rollback_of                integer,
    promoted_from_host         text,
    promoted_from_revision     integer,
    promoted_from_draft_sha256 text,
    promoted_from_draft_base   integer,
    PRIMARY KEY (domain_id, number)
);
CREATE TRIGGER webauthn_revisions_no_update BEFORE UPDATE ON webauthn_revisions
    FOR EACH ROW EXECUTE FUNCTION revisions_refuse_update();

-- The relying parties an app is a passkey client of (by RP ID, a host), marked by its team: the
-- readiness report and the origins export are about these apps.
CREATE TABLE passkey_clients (
    app_id     bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    rp_id      text NOT NULL CHECK (rp_id ~ '^[a-z0-9.-]{1,253}$'),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, rp_id)
);
CREATE INDEX passkey_clients_rp ON passkey_clients (rp_id);

-- The origins a relying party's server must accept, as last announced (`passkeys.origins-changed`):
-- a change is told once, by the transaction that makes it.
CREATE TABLE passkey_origin_sets (
    rp_id      text PRIMARY KEY,
    origins    text[] NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT now()
);

-- Every table a cached answer reads notifies the read model (0018); these do.
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['related_origins', 'webauthn_revisions', 'passkey_clients', 'passkey_origin_sets']
    LOOP
        EXECUTE format('CREATE TRIGGER aasa_reads_changed AFTER INSERT OR UPDATE OR DELETE ON %I '
                       'FOR EACH ROW EXECUTE FUNCTION aasa_reads_changed()', t);
        EXECUTE format('CREATE TRIGGER aasa_reads_truncated AFTER TRUNCATE ON %I '
                       'FOR EACH STATEMENT EXECUTE FUNCTION aasa_reads_changed()', t);
    END LOOP;
END;
$$;
