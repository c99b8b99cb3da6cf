-- Issue 38: publishing to where the files are served. A domain's web roots stay where they are
-- (`domains.web_roots`: every served byte unchanged); its object-store and purge targets are
-- listed here in order, as the validated JSON the API took (credential sets by name, never a secret).
CREATE TABLE object_targets (
    domain_id bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    position  integer NOT NULL,
    -- {"kind":"s3","bucket":…} or {"kind":"purge","provider":…}
    spec      jsonb NOT NULL,
    PRIMARY KEY (domain_id, position)
);

-- The last outcome per target, step by step (written, verified, purged, the edge), as
-- publish_targets keeps it per web root. `target` is the target's stable name (`s3://bucket/prefix`).
CREATE TABLE object_target_outcomes (
    domain_id    bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    target       text NOT NULL,
    ok           boolean NOT NULL,
    outcome      jsonb NOT NULL,
    attempted_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (domain_id, target)
);
