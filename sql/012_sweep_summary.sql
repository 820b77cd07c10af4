-- 012_sweep_summary.sql - issue 10 (cheap progress polling): what the sweeps
-- list and a sweep's summary show of a finished sweep, made once when it
-- finishes instead of at every poll (counting the jobs of a sweep of 10^5
-- jobs took about 0.4 s per poll of GET /api/v1/sweeps).
-- summary: {"counts", "verification_counts" (per state, design and
-- verification jobs), "jobs_with_warnings", "verification_jobs_with_warnings",
-- "jobs_verified", "best": {response: {"min", "max", "jobs"}} (over the done
-- design jobs, for the first 16 declared responses)}, written after the
-- dispatcher finished the sweep by the gateway's summary thread
-- (gateway/summary.c, ds_summarise in gateway/dispatch_db.c; the dispatcher
-- wrote it in its own pass when this migration was made); summary_at: the
-- finished_at it was made for.  (Comments of a migration may be corrected:
-- the runner, common/svc/db_migrate.c, records versions, not contents.)
-- Read only while the sweep is done or cancelled and summary_at equals its
-- finished_at: a sweep that runs again (status back to queued or running) is
-- counted live, and finishing it again drops the summary and makes a new
-- one.  Null for rows before this migration: made by the next passes.
ALTER TABLE sweeps ADD COLUMN IF NOT EXISTS summary jsonb;
ALTER TABLE sweeps ADD COLUMN IF NOT EXISTS summary_at timestamptz;
