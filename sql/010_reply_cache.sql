-- 010_reply_cache.sql - issue 10 (the sweep view of 10^5 jobs): a finished
-- sweep's /columns bodies, gzip-compressed, kept in the database so that
-- the table of a large sweep is made once, not once per gateway start or per
-- gateway (gateway/cache.c keeps them in memory too).  A finished sweep's
-- design jobs take no more results; the key names the sweep, the query and
-- the sweep's status, finished_at and njobs, and rows of an earlier
-- finished_at are deleted when a newer one is stored.  Rows go with their
-- sweep.  The body is gzip already: stored as it is (no second compression).
CREATE TABLE IF NOT EXISTS reply_cache (
    key         text PRIMARY KEY,
    sweep_id    uuid NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
    finished_at timestamptz NOT NULL,
    body        bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE reply_cache ALTER COLUMN body SET STORAGE EXTERNAL;
CREATE INDEX IF NOT EXISTS reply_cache_sweep_idx ON reply_cache (sweep_id);
