-- Tell people (issue 22): webhooks, and an outbox that loses nothing. An event is written in the
-- transaction of the change that caused it (`webhook_events`), and in the same statement one
-- delivery per webhook that may see it (`webhook_deliveries`): a committed change always has its
-- deliveries, a rolled-back one never. A delivery worker (one replica at a time, an advisory lock)
-- sends them in order per webhook, retrying with backoff for 24 hours.
CREATE TABLE webhooks (
    id          uuid PRIMARY KEY,
    -- NULL: an admin's webhook (every event); else a team's (its own team's events, and those of
    -- domains where it holds a grant, judged when the event is written).
    team_id     bigint REFERENCES teams (id) ON DELETE CASCADE,
    url         text NOT NULL CHECK (url LIKE 'https://%' AND length(url) <= 2048),
    -- The HMAC key deliveries are signed with. Unlike a token it cannot be stored hashed: aasad
    -- must sign with it. It is shown once (the create answer), never logged, never read back.
    secret      text NOT NULL,
    -- Event names; empty: every event the webhook may see.
    events      text[] NOT NULL DEFAULT '{}',
    description text NOT NULL DEFAULT '',
    active      boolean NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    version     bigint NOT NULL DEFAULT 1
);
CREATE INDEX webhooks_team ON webhooks (team_id);

CREATE TABLE webhook_events (
    id         bigserial PRIMARY KEY,
    name       text NOT NULL,
    domain     text,
    team       text,
    actor      text NOT NULL,
    text       text NOT NULL,
    data       jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_deliveries (
    id              uuid PRIMARY KEY,
    webhook_id      uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id        bigint NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_status     integer,
    last_error      text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    delivered_at    timestamptz,
    UNIQUE (webhook_id, event_id)
);
-- The worker's question: per webhook, its oldest undelivered event.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, event_id) WHERE status = 'pending';

-- `cdn.stale` is told once per episode: set when it is sent, cleared when the CDN converges (and
-- `cdn.converged` is sent then).
ALTER TABLE cdn_status ADD COLUMN stale_notified boolean NOT NULL DEFAULT false;
