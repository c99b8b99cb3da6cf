-- Issue 42: what Google's Digital Asset Links API says of each domain's Android apps, as the
-- Google monitor last saw it, per package, and the history of its changes (like cdn_status).
CREATE TABLE google_status (
    domain_id      bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    package        text NOT NULL,
    -- verified: Google links the host to the package with the current keys; stale: Google lists
    -- other keys for it (an older revision's); not-linked: Google does not link them at all;
    -- error: Google's answer could not be had or read.
    state          text NOT NULL CHECK (state IN ('verified', 'stale', 'not-linked', 'error')),
    -- The assetlinks.json revision the answer was compared with.
    revision       integer NOT NULL,
    since          timestamptz NOT NULL,
    checked_at     timestamptz NOT NULL,
    detail         text,
    -- The SHA-256 fingerprints Google lists for the package (statements.list).
    fingerprints   text[] NOT NULL DEFAULT '{}',
    stale_notified boolean NOT NULL DEFAULT false,
    PRIMARY KEY (domain_id, package)
);

CREATE TABLE google_events (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    domain_id bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    package   text NOT NULL,
    at        timestamptz NOT NULL DEFAULT now(),
    state     text NOT NULL,
    revision  integer NOT NULL,
    detail    text
);
CREATE INDEX google_events_domain ON google_events (domain_id, id DESC);
