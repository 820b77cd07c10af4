# tests/integration/bulk.sh - sourced after tests/integration/lib.sh (it_init
# done, a model stored in $MID): bulk_sweep N prints the id of a done sweep of
# N jobs inserted by SQL (the large sweeps of tests/browser/run.sh,
# bench/web_sweep.sh and bench/web_poll.sh): 3 parameters, 2 responses, every
# 97th job failed, every 13th with a warning.  The sweep is
# paused while its rows are written and done (finished_at now) after.
bulk_sweep() {
  local n=$1 id
  id=$(sql "INSERT INTO sweeps (model_id, name, spec, design, status, njobs, started_at, finished_at)
           VALUES ('$MID', 'bulk $n', '{\"responses\":[{\"name\":\"r1\",\"channel\":\"x\",\"reduce\":\"max\"},{\"name\":\"r2\",\"channel\":\"y\",\"reduce\":\"min\"}]}',
                   'random', 'paused', $n, now(), NULL) RETURNING id" | head -1)
  sql "INSERT INTO jobs (sweep_id, idx, parameters, status, attempt, error, started_at, finished_at)
       SELECT '$id', i, jsonb_build_object('a', round((((i * 7919) % 10007) / 10007.0)::numeric, 6),
                                           'b', (i % 10) + 1, 'c', round((((i * 104729) % 1009) / 1009.0)::numeric, 6)),
              CASE WHEN i % 97 = 0 THEN 'failed' ELSE 'done' END, 1,
              CASE WHEN i % 97 = 0 THEN 'solver failed: Newton did not converge at t = ' || (i % 7) END, now(), now()
       FROM generate_series(0::bigint, $n - 1) i" || fail "bulk jobs"
  sql "INSERT INTO results (job_id, channels, nsample, samples, responses)
       SELECT id, '{x,y}', 0, '', jsonb_build_object('r1', (parameters->>'a')::float8 * (parameters->>'b')::float8,
                                                      'r2', sin((parameters->>'c')::float8 * 6) - idx * 1e-6)
       FROM jobs WHERE sweep_id = '$id' AND status = 'done'" || fail "bulk results"
  sql "INSERT INTO metrics (job_id, integrator, wall_seconds, cpu_seconds, steps, newton_iterations, max_system_dimension,
                            tolerance_met, warning_count, warnings)
       SELECT id, 'bdf', 0.01 + (idx % 100) * 1e-4, 0.01 + (idx % 100) * 1e-4, 100 + (idx % 50), 300 + (idx % 70), 4,
              idx % 13 <> 0, (idx % 13 = 0)::int,
              CASE WHEN idx % 13 = 0 THEN '[\"tolerance not met: error estimate 2.5\"]'::jsonb ELSE '[]'::jsonb END
       FROM jobs WHERE sweep_id = '$id' AND status = 'done'" || fail "bulk metrics"
  # done once complete (paused meanwhile: nothing touches it half-written)
  sql "UPDATE sweeps SET status = 'done', finished_at = now() WHERE id = '$id'" >/dev/null || fail "bulk done"
  echo "$id"
}
