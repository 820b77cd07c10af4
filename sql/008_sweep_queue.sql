-- 008_sweep_queue.sql - issue 11 (Scale): each sweep's queue in dispatch
-- order, so that the dispatcher's claim reads the first few queued jobs of
-- each runnable sweep (gateway/dispatch_db.c, ds_claim) instead of every
-- queued job of the running sweeps, sorted, at every claim (quadratic in the
-- size of a sweep: 10 ms per claim with 10,000 jobs waiting).  Built in the
-- migration's transaction: writes to jobs wait while it is built.
CREATE INDEX IF NOT EXISTS jobs_sweep_queue_idx ON jobs (sweep_id, priority DESC, id) WHERE status = 'queued';
