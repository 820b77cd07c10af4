-- 007_worker_keys.sql - the CurveZMQ public key (Z85) a worker connected
-- with: a worker name stays bound to its key while the worker is alive, so
-- another key cannot take the name over (and with it the name's leases);
-- NULL for workers of a gateway running open (--zmq-open-insecure).
ALTER TABLE workers ADD COLUMN IF NOT EXISTS public_key text;
