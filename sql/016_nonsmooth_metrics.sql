-- 016_nonsmooth_metrics.sql - the solver's metrics the service did not keep:
-- Moreau-Jean's steps in which a contact status changed (impact,
-- activation, release, stick-slip) and the largest bound of the position
-- error such a switch inside a step makes, in units of the tolerance (both
-- left out of error_estimate and tolerance_met by design: mj_error.c); and
-- how often the BDF chose its independent constraint set again.  The names
-- are the CLI's metrics keys.  Null for rows written before and for older
-- workers; 0 for runs without a switch (and the other integrators).
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS nonsmooth_steps bigint;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS nonsmooth_error_estimate double precision;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS kept_set_reselections bigint;
