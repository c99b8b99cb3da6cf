-- Hardening, round 3 (issue 24): a team pins only URLs inside its own grant, for every kind of
-- golden URL; an admin's expectation may pin any URL of the domain. `admin_pinned` records which
-- an expectation is: set by the last write to it (an admin's API write sets it, a team's or a
-- manifest's clears it). Whether a team's expectation lies in its grant is not stored: it is
-- read against the grants at every check, so one left outside by an older release, or by a grant
-- that shrank since, is shown as `outOfGrant` and no longer blocks anyone's change.
ALTER TABLE expectations ADD COLUMN admin_pinned boolean NOT NULL DEFAULT false;

-- Expectations an admin token wrote last (the audit's actor has no team) stay as binding as they
-- were; every other one is judged by its team's grant from now on.
UPDATE expectations e SET admin_pinned = true
WHERE (
    SELECT a.actor_team IS NULL AND a.actor_token IS NOT NULL
    FROM audit_events a
    WHERE a.entity_type = 'expectation' AND a.entity_id = e.id::text
      AND a.action IN ('expectation.create', 'expectation.update')
    ORDER BY a.id DESC LIMIT 1
);
