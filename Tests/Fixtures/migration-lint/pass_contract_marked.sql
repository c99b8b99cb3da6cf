-- aasa: breaks-older-releases
ALTER TABLE apps DROP COLUMN note;
