-- 005_accuracy.sql - issue 9: every run says how accurate it is, and a sweep
-- can carry evidence of its accuracy.
--
-- 1. The solver's accuracy metrics per job: the tolerances the run used, its
--    largest local error estimate in units of the tolerance (NULL where the
--    method has none), whether it met the tolerance, and its warnings (count
--    of all raised, texts of the first four as a JSON array of strings).
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS tolerance double precision;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS abs_tolerance double precision;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS error_estimate double precision;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS tolerance_met boolean;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS warning_count integer;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS warnings jsonb;

-- 2. Verification runs ("verify": f in a sweep).  A job is a design job (a
--    row of the sweep's design, as before) or a verification job: the same
--    parameters with a ten times tighter tolerance, `verifies` = the design
--    job's id.  Existing jobs are design jobs.  sweeps.njobs keeps counting
--    design jobs; nverify counts the verification jobs.
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'design';
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS verifies bigint REFERENCES jobs(id) ON DELETE CASCADE;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check
    CHECK (kind IN ('design', 'verify') AND (kind = 'verify') = (verifies IS NOT NULL));
-- the dispatcher's look for verification pairs both done, per sweep
CREATE INDEX IF NOT EXISTS jobs_verify_idx ON jobs (sweep_id, status) WHERE kind = 'verify';
ALTER TABLE sweeps ADD COLUMN IF NOT EXISTS nverify integer NOT NULL DEFAULT 0;

-- Written by the dispatcher once a design job and its verification job are
-- both done (one row per verified design job): the largest absolute
-- difference of each output channel over the samples (NULL when the sample
-- times do not line up) ...
CREATE TABLE IF NOT EXISTS verifications (
    job_id         bigint PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
    verify_job_id  bigint NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    sweep_id       uuid NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
    channels       jsonb,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS verifications_sweep_idx ON verifications (sweep_id);
CREATE INDEX IF NOT EXISTS verifications_verify_job_idx ON verifications (verify_job_id);
-- ... and of each response: value (the job's), reference (the verification
-- run's), |value - reference| and that relative to |reference| (NULL when
-- the reference is 0 and the value is not).
CREATE TABLE IF NOT EXISTS verification_responses (
    job_id     bigint NOT NULL REFERENCES verifications(job_id) ON DELETE CASCADE,
    name       text NOT NULL,
    value      double precision,
    reference  double precision,
    abs_diff   double precision,
    rel_diff   double precision,
    PRIMARY KEY (job_id, name)
);
