-- The request path, profiled (issue 23): each replica keeps the principals of the tokens it has
-- seen in memory (PrincipalCache), so an authenticated request needs no token query. A change
-- that alters what a token may do NOTIFYs every replica, which forgets the token at once:
-- revocation, expiry, scopes, name or team (its own row changed or deleted, a cascade from its
-- team included), and a team renamed or deleted ('*': forget every token). Use of a token
-- (`last_used_at`) notifies nobody.
CREATE FUNCTION aasa_notify_token_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('aasa_tokens', OLD.id::text);
    RETURN NULL;
END
$$;
CREATE TRIGGER tokens_changed
    AFTER UPDATE OF revoked_at, expires_at, scopes, name, team_id, secret_hash OR DELETE ON tokens
    FOR EACH ROW EXECUTE FUNCTION aasa_notify_token_changed();

CREATE FUNCTION aasa_notify_team_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('aasa_tokens', '*');
    RETURN NULL;
END
$$;
CREATE TRIGGER teams_changed
    AFTER UPDATE OF name OR DELETE ON teams
    FOR EACH ROW EXECUTE FUNCTION aasa_notify_team_changed();
