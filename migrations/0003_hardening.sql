-- Hardening (issue 15): token lineage, the domain-wide services as their own grant, and the
-- Apple Team ID prefixes a team may register apps under.

-- The team token that created this one (null for tokens made by an admin token or on the server
-- host: those answer to the organisation, not to one credential). A child never outlives its
-- parent, and revoking a parent revokes its descendants (in the revocation's transaction).
ALTER TABLE tokens ADD COLUMN parent_id uuid REFERENCES tokens (id) ON DELETE CASCADE;
CREATE INDEX tokens_parent ON tokens (parent_id);

-- The domain-wide services (webcredentials offers saved passwords for the whole domain) need
-- their own grant. Grants that exist keep what they had before (every service), so upgrading
-- changes no served file; new grants have none unless an admin lists them.
ALTER TABLE grants ADD COLUMN services text[] NOT NULL DEFAULT '{}'
    CHECK (services <@ ARRAY['webcredentials', 'appclips', 'activitycontinuation']);
UPDATE grants SET services = ARRAY['webcredentials', 'appclips', 'activitycontinuation'];

-- The Apple Team ID prefixes (ABCDE12345) a team registers apps under. A prefix belongs to at
-- most one team; a prefix no team claims stays open to all, as before.
ALTER TABLE teams ADD COLUMN apple_team_ids text[] NOT NULL DEFAULT '{}'
    CHECK (array_to_string(apple_team_ids, ',') ~ '^([A-Z0-9]{10}(,[A-Z0-9]{10})*)?$');
