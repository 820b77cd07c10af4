-- 011_metrics_formulation.sql - issue 12 (comparison of paired runs): the
-- formulation a job ran in ("natural" or "relative", the solver's metrics
-- JSON), and in relative coordinates the joint coordinates and chord
-- equations, so that /api/v1/compare can report and group the two sides of
-- a solver.formulation pair.  Null for rows written before (all natural) and
-- for older workers.
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS formulation text;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS relative_coordinates integer;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS relative_constraints integer;
