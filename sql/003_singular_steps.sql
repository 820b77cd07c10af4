-- 003_singular_steps.sql - the solver's counted singular-configuration
-- warning: steps taken through a (near-)singular configuration.
ALTER TABLE metrics ADD COLUMN IF NOT EXISTS singular_steps bigint;
