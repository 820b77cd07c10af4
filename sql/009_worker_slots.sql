-- 009_worker_slots.sql - the credit a worker last asked for (jobs it may
-- hold at once): fixed by --slots, or adapted by the worker to its job
-- durations (worker/main.c), shown by GET /api/v1/workers.
ALTER TABLE workers ADD COLUMN IF NOT EXISTS slots integer;
