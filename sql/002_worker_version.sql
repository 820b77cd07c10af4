-- 002_worker_version.sql - a small second migration: the worker's version string
-- and an index for "last results first" listings.  Exists also to prove that
-- an old database (001 only) is brought to the current schema at start-up.
ALTER TABLE workers ADD COLUMN IF NOT EXISTS version text;
CREATE INDEX IF NOT EXISTS results_created_idx ON results (created_at DESC);
