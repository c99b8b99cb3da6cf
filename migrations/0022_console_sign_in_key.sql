-- The key that seals a console sign-in under way (its state, nonce and PKCE seed) into the browser's
-- binding cookie (issue 62): nothing is stored per sign-in before the provider answers, so a flood of
-- started sign-ins fills no table and locks nobody out. One row, made by the first replica that needs
-- it; every replica reads the same one, so a sign-in started on one finishes on another.
-- console_oidc_logins stays for the previous release, which still writes and reads it.
CREATE TABLE console_sign_in_keys (
    id         bigint PRIMARY KEY CHECK (id = 1),
    key        bytea NOT NULL CHECK (length(key) = 32),
    created_at timestamptz NOT NULL DEFAULT now()
);
