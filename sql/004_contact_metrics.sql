-- 004_contact_metrics.sql - metrics of the rigid-contact and nonsmooth-joint
-- methods (issue 3): which method solved the contacts, the complementarity
-- problems' sizes and failures, events, impacts and Zeno closures, and the per-step
-- complementarity check.
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS contact_method text;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS mean_lcp_dimension double precision;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS max_lcp_dimension integer;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS lcp_solves bigint;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS lcp_failures bigint;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS events bigint;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS impacts bigint;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS max_penetration double precision;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS max_complementarity_error double precision;
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS zeno_closures bigint;
