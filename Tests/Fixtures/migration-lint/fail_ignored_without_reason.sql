-- squawk-ignore require-concurrent-index-creation
CREATE INDEX apps_note ON apps (note);
