-- The read model (issue 43): every replica keeps the hot reads' encoded answers and the principals
-- of the tokens it has seen in memory, each entry stamped with the replica's read generation. A
-- change to any table those answers read NOTIFYs `aasa_reads`, in the changing transaction, so it
-- is delivered at commit to every replica, which then bumps its generation and so drops every entry
-- stamped before it. A trigger, not the services' code: a write by any path (a service, the
-- background workers, an operator's SQL) cannot forget it.
--
-- PostgreSQL folds identical notifications of one transaction into one, so a change of many rows
-- notifies once. Left out are tables no cached answer reads and that change on reads or constantly:
-- the audit trail, idempotency keys, console sessions (touched per page), the webhook outbox and
-- its deliveries, the OIDC exchanges' replay records, and the migrations' own table.
-- `ReadModelTests` fails when a table is neither notifying nor listed here, so a new table is decided
-- on, not forgotten.
CREATE FUNCTION aasa_reads_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('aasa_reads', '');
    RETURN NULL;
END;
$$;

DO $$
DECLARE
    t text;
BEGIN
    FOR t IN
        SELECT tablename FROM pg_tables
        WHERE schemaname = current_schema()
          AND tablename NOT IN ('schema_migrations', 'audit_events', 'idempotency_keys', 'console_sessions',
                                'webhook_events', 'webhook_deliveries', 'oidc_exchanges')
    LOOP
        -- Per row, so an UPDATE that matches nothing (a janitor's, a token already touched this
        -- minute) notifies nobody; TRUNCATE has no rows, so it notifies per statement.
        EXECUTE format('CREATE TRIGGER aasa_reads_changed AFTER INSERT OR UPDATE OR DELETE ON %I '
                       'FOR EACH ROW EXECUTE FUNCTION aasa_reads_changed()', t);
        EXECUTE format('CREATE TRIGGER aasa_reads_truncated AFTER TRUNCATE ON %I '
                       'FOR EACH STATEMENT EXECUTE FUNCTION aasa_reads_changed()', t);
    END LOOP;
END;
$$;
