-- What Apple's CDN serves for each domain (issue 14), as the monitor last saw it, and the history
-- of its changes. A domain with no row was never checked.
CREATE TABLE cdn_status (
    domain_id   bigint PRIMARY KEY REFERENCES domains (id) ON DELETE CASCADE,
    -- converged: the current revision; stale: an older revision, or bytes that are none;
    -- absent: the CDN has no file (404); error: another answer, or no answer.
    state       text NOT NULL CHECK (state IN ('converged', 'stale', 'absent', 'error')),
    revision    integer,
    sha256      text,
    since       timestamptz NOT NULL,
    checked_at  timestamptz NOT NULL,
    http_status integer,
    detail      text
);

CREATE TABLE cdn_events (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    domain_id bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    at        timestamptz NOT NULL DEFAULT now(),
    state     text NOT NULL,
    revision  integer,
    detail    text
);
CREATE INDEX cdn_events_domain ON cdn_events (domain_id, id DESC);
