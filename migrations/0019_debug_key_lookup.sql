-- Another package's debug key (A021) is looked up by the keys a domain's statement lists, not by
-- reading every app's labels and every build's keys on each snapshot (0.26 ms against 38-48 ms at
-- 20,000 apps and 20,000 builds): containment indexes for `key_labels @> {key: "debug"}` and
-- `fingerprints @> [{sha256: key, label: "debug"}]`.
CREATE INDEX apps_key_labels_containment ON apps USING gin (key_labels jsonb_path_ops);
CREATE INDEX app_builds_fingerprints_containment ON app_builds USING gin (fingerprints jsonb_path_ops);
