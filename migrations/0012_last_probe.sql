-- The last origin probe of each domain, which the console's overview shows: when it ran, whether
-- every URL served the current revision without an error finding, how many URLs it fetched, and
-- its findings as [{url, code, message}]. Each probe replaces the row. A probe observes; it
-- changes nothing in the registry, so it is not an audit event.
CREATE TABLE probe_results (
    domain_id  bigint PRIMARY KEY REFERENCES domains (id) ON DELETE CASCADE,
    checked_at timestamptz NOT NULL DEFAULT now(),
    ok         boolean NOT NULL,
    urls       integer NOT NULL CHECK (urls >= 0),
    findings   jsonb NOT NULL CHECK (jsonb_typeof(findings) = 'array')
);
