-- Move in (issue 20): the most common assetlinks.json statement names an Android app for
-- `handle_all_urls` with no `dynamic_app_link_components`: the app's manifest alone decides which
-- of the domain's URLs it opens. An Android app's rule set on a domain may now say exactly that
-- (`manifest_decides`), in place of rules. It is a claim on the whole domain, so it needs a
-- domain-wide grant (checked by the write, like a catch-all rule). Existing rows keep false: no
-- served byte changes.
ALTER TABLE rule_sets
    ADD COLUMN manifest_decides boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT rule_sets_manifest_without_rules CHECK (NOT manifest_decides OR rules = '[]'::jsonb);
