-- 017_slow_multiplier_steps.sql - the BDF's steps accepted with positions
-- and velocities converged and the constraint multipliers not at the
-- iteration limit, counted apart from singular_steps (which counted both:
-- the roller chain drive, a regular mechanism, showed 226 "singular"
-- steps).  The name is the CLI's metrics key.  Null for rows written
-- before and for older workers; 0 for the other integrators.
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS slow_multiplier_steps bigint;
