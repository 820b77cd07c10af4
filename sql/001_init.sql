-- 001_init.sql - the first schema of the sweep service.
--
-- Applied once by the gateway at start-up (see common/svc/db_migrate.c) and
-- recorded in schema_migrations.  PostgreSQL is the source of truth: a job
-- exists here before any message about it is sent over ZeroMQ.

-- Mechanisms.  id: first 16 hex digits of the SHA-256 of the canonical JSON
-- (sorted keys, compact); content_hash: the whole digest, unique, so that
-- posting the same mechanism twice returns the stored one.
CREATE TABLE models (
    id            text PRIMARY KEY,
    name          text NOT NULL,
    definition    jsonb NOT NULL,
    content_hash  text NOT NULL UNIQUE,
    check_report  jsonb NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

-- A sweep: the submitted specification and its expansion into jobs.
-- status: queued (no job started) | running | paused | cancelled | done.
-- counts: per-state job counts, written when the sweep ends (live counts
-- come from the jobs table).
CREATE TABLE sweeps (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    model_id     text NOT NULL REFERENCES models(id),
    name         text NOT NULL DEFAULT '',
    spec         jsonb NOT NULL,
    design       text NOT NULL,
    status       text NOT NULL DEFAULT 'queued'
                 CHECK (status IN ('queued','running','paused','cancelled','done')),
    priority     integer NOT NULL DEFAULT 0,
    njobs        integer NOT NULL,
    counts       jsonb,
    created_at   timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    finished_at  timestamptz
);
CREATE INDEX sweeps_model_idx   ON sweeps (model_id, created_at DESC);
CREATE INDEX sweeps_status_idx  ON sweeps (status, created_at DESC);
CREATE INDEX sweeps_created_idx ON sweeps (created_at DESC, id);

-- One simulation.  parameters: {name: number}; solver_overrides: {option:
-- value}.  The claim moves queued -> running with attempt + 1, a lease owner
-- (the worker's identity) and a lease expiry; not_before delays a retry.
CREATE TABLE jobs (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    sweep_id         uuid NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
    idx              integer NOT NULL,
    priority         integer NOT NULL DEFAULT 0,
    parameters       jsonb NOT NULL DEFAULT '{}',
    solver_overrides jsonb NOT NULL DEFAULT '{}',
    status           text NOT NULL DEFAULT 'queued'
                     CHECK (status IN ('queued','running','done','failed','cancelled')),
    attempt          integer NOT NULL DEFAULT 0,
    max_attempts     integer NOT NULL DEFAULT 3,
    lease_owner      text,
    lease_expires    timestamptz,
    not_before       timestamptz NOT NULL DEFAULT '-infinity',
    started_at       timestamptz,
    finished_at      timestamptz,
    error            text,
    UNIQUE (sweep_id, idx)
);
-- The dispatcher's claim: queued jobs by priority, then age.
CREATE INDEX jobs_queue_idx  ON jobs (priority DESC, id) WHERE status = 'queued';
-- Lease expiry scan over running jobs.
CREATE INDEX jobs_lease_idx  ON jobs (lease_expires) WHERE status = 'running';
-- Per-sweep listings and counts.
CREATE INDEX jobs_sweep_status_idx ON jobs (sweep_id, status);

-- Exactly one result per job (the primary key makes a second write a no-op).
-- samples: nsample x (1 + nchannel) float64 little-endian, row-major, time
-- first; channels: the names of the columns after time.
CREATE TABLE results (
    job_id     bigint PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
    channels   text[] NOT NULL,
    nsample    integer NOT NULL,
    samples    bytea NOT NULL,
    responses  jsonb NOT NULL DEFAULT '{}',
    worker_id  text,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Scalar responses as rows, for queries across jobs.
CREATE TABLE responses (
    job_id  bigint NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    name    text NOT NULL,
    value   double precision,
    PRIMARY KEY (job_id, name)
);
CREATE INDEX responses_name_idx ON responses (name, value);

-- Solver efficiency metrics: one column per field of mbs_metrics.
CREATE TABLE metrics (
    job_id                     bigint PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
    integrator                 text,
    wall_seconds               double precision,
    cpu_seconds                double precision,
    steps                      bigint,
    rejected_steps             bigint,
    newton_iterations          bigint,
    jacobian_evaluations       bigint,
    factorizations             bigint,
    mean_system_dimension      double precision,
    max_system_dimension       integer,
    coords_before              integer,
    coords_after               integer,
    constraints_before         integer,
    constraints_after          integer,
    max_constraint_violation   double precision,
    max_velocity_violation     double precision,
    energy_drift               double precision,
    conservative               boolean,
    mean_active_contacts       double precision,
    max_active_contacts        integer,
    contact_activations        bigint,
    contact_deactivations      bigint,
    contact_detection_seconds  double precision,
    linear_algebra_seconds     double precision,
    peak_memory_bytes          bigint,
    order_max_used             integer
);

-- Workers seen by any gateway (refreshed by the dispatcher's heartbeat tick).
CREATE TABLE workers (
    id              text PRIMARY KEY,
    host            text NOT NULL DEFAULT '',
    pid             integer,
    gateway         text,
    first_seen      timestamptz NOT NULL DEFAULT now(),
    last_heartbeat  timestamptz NOT NULL DEFAULT now(),
    jobs_done       bigint NOT NULL DEFAULT 0
);
