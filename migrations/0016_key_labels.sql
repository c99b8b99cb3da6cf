-- Issue 42: what each of an Android app's signing keys is (`play-signing`, `upload`, `debug`, or
-- the team's own word), by fingerprint, as builds already say of theirs. The labels change no
-- served byte; they let the service warn, before a publish, of the keys people get wrong: a
-- production app listing only its upload key while Play App Signing re-signs it, a fingerprint
-- that is another package's debug key.
ALTER TABLE apps ADD COLUMN key_labels jsonb NOT NULL DEFAULT '{}'
    CHECK (jsonb_typeof(key_labels) = 'object');
