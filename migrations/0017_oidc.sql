-- Issue 39: release pipelines without stored secrets. A CI job's OIDC ID token (GitHub Actions,
-- GitLab CI, …) is exchanged for a short-lived team token, when an issuer the organisation
-- trusts signed it and one of the team's trust rules matches its claims.

-- The trusted issuers, by a short name: the issuer URL (its discovery document lists the JWKS)
-- and the audience its tokens must carry.
CREATE TABLE oidc_issuers (
    name       text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9-]{0,31}$'),
    issuer     text NOT NULL UNIQUE CHECK (issuer ~ '^https://'),
    audience   text NOT NULL CHECK (length(audience) BETWEEN 1 AND 255),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    version    bigint NOT NULL DEFAULT 1
);

-- Each team's trust rules, in order: [{issuer, claims: {claim: value}, scopes: [write|read]}].
-- One document per team, replaced whole (with If-Match on `version`).
CREATE TABLE team_trust (
    team_id    bigint PRIMARY KEY REFERENCES teams (id) ON DELETE CASCADE,
    rules      jsonb NOT NULL CHECK (jsonb_typeof(rules) = 'array'),
    updated_at timestamptz NOT NULL DEFAULT now(),
    version    bigint NOT NULL DEFAULT 1
);

-- Every exchanged ID token, by issuer and `jti`, until it expires: an ID token is exchanged once.
CREATE TABLE oidc_exchanges (
    issuer     text NOT NULL,
    jti        text NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (issuer, jti)
);
CREATE INDEX oidc_exchanges_expiry ON oidc_exchanges (expires_at);
