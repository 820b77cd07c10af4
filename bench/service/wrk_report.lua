-- bench/service/wrk_report.lua - wrk script used by bench/service_bench.sh:
-- at the end of a run, one machine-readable line
--   BENCH requests duration_s req_per_s p50_ms p90_ms p99_ms max_ms errors non2xx
-- errors = connect + read + write + timeout socket errors; non2xx = HTTP
-- answers with a status outside 2xx/3xx (wrk's summary.errors.status).
done = function(summary, latency, requests)
  local e = summary.errors
  local secs = summary.duration / 1e6
  io.write(string.format("BENCH %d %.3f %.1f %.3f %.3f %.3f %.3f %d %d\n",
    summary.requests, secs, summary.requests / secs,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000,
    e.connect + e.read + e.write + e.timeout, e.status))
end
