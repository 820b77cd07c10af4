-- 015_sweep_counts.sql - issue 11 (a client polling a large running sweep):
-- each sweep's jobs per kind and state, and its jobs with an accuracy
-- warning per kind, kept by triggers, so that GET /api/v1/sweeps/{id}, the
-- sweeps list and /metrics read a few rows instead of counting the jobs
-- (a running sweep of 20,000 jobs: 48 ms of PostgreSQL per poll, the largest
-- PostgreSQL cost of bench/dispatch_bench.sh).
--
-- The rows are differences: every statement that inserts, deletes or
-- updates jobs appends one row per (sweep, kind, status) whose number of
-- jobs it changed, with the change (n may be negative); a metrics row with a
-- warning (tolerance_met false or warning_count > 0, as SQL_WARNED in
-- gateway/sweep_sql.h) adds 1 under status 'warned'.  A count is the sum of
-- the sweep's rows: written in the transaction that changed the jobs, it
-- equals a count of the jobs in any snapshot.  Appending waits for no lock
-- of another writer (several gateways, a cancel beside the dispatcher); the
-- summary thread of a dispatching gateway folds a sweep's rows into one per
-- key when they are many (ds_fold_counts in gateway/dispatch_db.c).  The
-- foreign key takes a KEY SHARE lock on the sweep's row for the appending
-- transaction, which only a deletion of the sweep and FOR UPDATE wait for
-- (the claim's mark of a queued sweep as running skips a locked row and
-- leaves it to the next claim).
CREATE TABLE IF NOT EXISTS sweep_counts (
    sweep_id uuid NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
    kind     text NOT NULL,
    status   text NOT NULL,
    n        bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS sweep_counts_sweep_idx ON sweep_counts (sweep_id);

-- Jobs inserted (a sweep's COPY, its verification jobs, a bulk load).
CREATE OR REPLACE FUNCTION sweep_counts_jobs_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO sweep_counts (sweep_id, kind, status, n)
    SELECT sweep_id, kind, status, count(*) FROM sc_new GROUP BY sweep_id, kind, status;
    RETURN NULL;
END $$;

-- Jobs updated: new rows counted in, old rows out (a statement that changes
-- no status, such as the lease extension, appends nothing).
CREATE OR REPLACE FUNCTION sweep_counts_jobs_upd() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO sweep_counts (sweep_id, kind, status, n)
    SELECT sweep_id, kind, status, sum(d) FROM
        (SELECT sweep_id, kind, status, 1 AS d FROM sc_new
         UNION ALL SELECT sweep_id, kind, status, -1 FROM sc_old) x
    GROUP BY sweep_id, kind, status HAVING sum(d) <> 0;
    RETURN NULL;
END $$;

-- Jobs deleted: counted out, unless their sweep is gone too (the cascade of
-- a sweep's deletion, which deletes its rows here as well).
CREATE OR REPLACE FUNCTION sweep_counts_jobs_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO sweep_counts (sweep_id, kind, status, n)
    SELECT o.sweep_id, o.kind, o.status, -count(*) FROM sc_old o
    WHERE EXISTS (SELECT 1 FROM sweeps s WHERE s.id = o.sweep_id)
    GROUP BY o.sweep_id, o.kind, o.status;
    RETURN NULL;
END $$;

-- Metrics written or changed: the warned jobs of the job's sweep and kind
-- (metrics are deleted only with their job: a deleted job's metrics are
-- not found in jobs any more, so nothing is appended then).
CREATE OR REPLACE FUNCTION sweep_counts_metrics() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO sweep_counts (sweep_id, kind, status, n)
        SELECT j.sweep_id, j.kind, 'warned', count(*) FROM sc_new m JOIN jobs j ON j.id = m.job_id
        WHERE m.tolerance_met = false OR m.warning_count > 0 GROUP BY j.sweep_id, j.kind;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO sweep_counts (sweep_id, kind, status, n)
        SELECT j.sweep_id, j.kind, 'warned', sum(d) FROM
            (SELECT job_id, 1 AS d FROM sc_new WHERE tolerance_met = false OR warning_count > 0
             UNION ALL SELECT job_id, -1 FROM sc_old WHERE tolerance_met = false OR warning_count > 0) x
            JOIN jobs j ON j.id = x.job_id
        GROUP BY j.sweep_id, j.kind HAVING sum(d) <> 0;
    ELSE
        INSERT INTO sweep_counts (sweep_id, kind, status, n)
        SELECT j.sweep_id, j.kind, 'warned', -count(*) FROM sc_old m JOIN jobs j ON j.id = m.job_id
        WHERE m.tolerance_met = false OR m.warning_count > 0 GROUP BY j.sweep_id, j.kind;
    END IF;
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS sweep_counts_ins ON jobs;
DROP TRIGGER IF EXISTS sweep_counts_upd ON jobs;
DROP TRIGGER IF EXISTS sweep_counts_del ON jobs;
DROP TRIGGER IF EXISTS sweep_counts_mins ON metrics;
DROP TRIGGER IF EXISTS sweep_counts_mupd ON metrics;
DROP TRIGGER IF EXISTS sweep_counts_mdel ON metrics;
CREATE TRIGGER sweep_counts_ins AFTER INSERT ON jobs REFERENCING NEW TABLE AS sc_new
    FOR EACH STATEMENT EXECUTE FUNCTION sweep_counts_jobs_ins();
CREATE TRIGGER sweep_counts_upd AFTER UPDATE ON jobs REFERENCING OLD TABLE AS sc_old NEW TABLE AS sc_new
    FOR EACH STATEMENT EXECUTE FUNCTION sweep_counts_jobs_upd();
CREATE TRIGGER sweep_counts_del AFTER DELETE ON jobs REFERENCING OLD TABLE AS sc_old
    FOR EACH STATEMENT EXECUTE FUNCTION sweep_counts_jobs_del();
CREATE TRIGGER sweep_counts_mins AFTER INSERT ON metrics REFERENCING NEW TABLE AS sc_new
    FOR EACH STATEMENT EXECUTE FUNCTION sweep_counts_metrics();
CREATE TRIGGER sweep_counts_mupd AFTER UPDATE ON metrics REFERENCING OLD TABLE AS sc_old NEW TABLE AS sc_new
    FOR EACH STATEMENT EXECUTE FUNCTION sweep_counts_metrics();
CREATE TRIGGER sweep_counts_mdel AFTER DELETE ON metrics REFERENCING OLD TABLE AS sc_old
    FOR EACH STATEMENT EXECUTE FUNCTION sweep_counts_metrics();

-- The sweeps already there: their counts now (the triggers above, created
-- in this transaction, hold off other writers of jobs and metrics until it
-- commits, so nothing is counted twice or missed).
DELETE FROM sweep_counts;
INSERT INTO sweep_counts (sweep_id, kind, status, n)
SELECT sweep_id, kind, status, count(*) FROM jobs GROUP BY sweep_id, kind, status;
INSERT INTO sweep_counts (sweep_id, kind, status, n)
SELECT j.sweep_id, j.kind, 'warned', count(*) FROM metrics m JOIN jobs j ON j.id = m.job_id
WHERE m.tolerance_met = false OR m.warning_count > 0 GROUP BY j.sweep_id, j.kind;
