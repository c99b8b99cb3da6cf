-- apps holds one row per app (thousands at most): the index builds in milliseconds.
-- squawk-ignore require-concurrent-index-creation
CREATE INDEX apps_note ON apps (note);
