-- See it (issue 21): the web console's sessions. Signing in with a token makes a session; the
-- browser holds only its random ID (an HttpOnly cookie), and the row holds its SHA-256, so a read
-- of this table signs nobody in. The session speaks as its token: revoking or expiring the token
-- ends it (checked on every request), deleting the token deletes it.
CREATE TABLE console_sessions (
    id_hash      bytea PRIMARY KEY CHECK (length(id_hash) = 32),
    token_id     uuid NOT NULL REFERENCES tokens (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    -- Idle expiry counts from here; touched at most once a minute.
    last_seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_sessions_token ON console_sessions (token_id);
