-- Where a promoted revision came from, told truly (issue 41). A promotion that took the source's
-- draft recorded the source's current revision as if the rules came from it; now such a revision
-- names the draft by the SHA-256 of the source's rendered file and the revision that draft was
-- edited from (NULL when the source had never published). assetlinks.json revisions record their
-- source as the AASA's do: promoted_from_host set means promoted; promoted_from_revision is the
-- source revision taken, or NULL when a draft was.
ALTER TABLE revisions
    ADD COLUMN promoted_from_draft_sha256 text,
    ADD COLUMN promoted_from_draft_base integer;
ALTER TABLE assetlinks_revisions
    ADD COLUMN promoted_from_host text,
    ADD COLUMN promoted_from_revision integer,
    ADD COLUMN promoted_from_draft_sha256 text,
    ADD COLUMN promoted_from_draft_base integer;
