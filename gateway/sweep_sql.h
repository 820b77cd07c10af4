/*
 * sweep_sql.h - SQL fragments shared by the sweep summaries (api_sweeps.c)
 * and the dispatcher's pass that finishes sweeps (dispatch_db.c), so that a
 * finished sweep's stored summary (sweeps.summary, sql/012_sweep_summary.sql)
 * and the live counts are made by the same expressions.
 */
#ifndef GW_SWEEP_SQL_H
#define GW_SWEEP_SQL_H

/* Jobs with an accuracy warning (tolerance not met, or any warning): the
 * fragment counts the sweep's jobs of one kind, each job's metrics looked up
 * by its key (a subplan per job, not a join the planner may make by a hash
 * of the whole metrics table: so its cost is that of the sweep, whatever
 * else the database holds). */
#define SQL_WARNED(sweep, kind) \
    "(SELECT count(*) FILTER (WHERE EXISTS (SELECT 1 FROM metrics wm WHERE wm.job_id = wj.id " \
    "                                        AND (wm.tolerance_met = false OR wm.warning_count > 0))) " \
    " FROM jobs wj WHERE wj.sweep_id = " sweep " AND wj.kind = '" kind "')"

/* The counted jobs of a running sweep, from the differences the triggers of
 * sql/015_sweep_counts.sql append (a few rows per sweep, folded now and then
 * by ds_fold_counts), not from its jobs: equal to SQL_WARNED and to a count of
 * the jobs by kind and state in the same snapshot (test_progress.sh checks
 * both).  SQL_COUNTED_WARNED: the jobs of one kind with a warning, as bigint;
 * SQL_COUNTED_STATES: the rows (kind, status, n) of the sweep's jobs, for a
 * FROM clause, states with no job left out (as a count by GROUP BY). */
#define SQL_COUNTED_WARNED(sweep, kind) \
    "(SELECT coalesce(sum(cw.n), 0)::bigint FROM sweep_counts cw " \
    " WHERE cw.sweep_id = " sweep " AND cw.kind = '" kind "' AND cw.status = 'warned')"
#define SQL_COUNTED_STATES(sweep) \
    "(SELECT cs.kind, cs.status, sum(cs.n)::bigint AS n FROM sweep_counts cs " \
    " WHERE cs.sweep_id = " sweep " AND cs.status <> 'warned' GROUP BY cs.kind, cs.status HAVING sum(cs.n) <> 0)"

/* The least and largest value of the response named by the text expression
 * name over the sweep's done design jobs, and the number of them with a
 * numeric value, as json (each job's result looked up by its key, as
 * SQL_WARNED). */
#define SQL_BEST(sweep, name) \
    "(SELECT json_build_object('response', " name ", 'min', min(v), 'max', max(v), 'jobs', count(v)) " \
    " FROM (SELECT (SELECT (br.responses->>" name ")::float8 FROM results br " \
    "               WHERE br.job_id = bj.id AND jsonb_typeof(br.responses->" name ") = 'number') AS v " \
    "       FROM jobs bj WHERE bj.sweep_id = " sweep " AND bj.kind = 'design') bq)"

/* True when the sweep row s has a summary that may be shown instead of live
 * counts: it is done or cancelled, and the summary was made for its current
 * finished_at (a sweep that runs again, or whose finished_at is changed, is
 * counted live until the dispatcher makes a new summary). */
#define SQL_SUMMARY_CURRENT(s) \
    "(" s ".status IN ('done','cancelled') AND " s ".summary_at = " s ".finished_at " \
    " AND " s ".summary IS NOT NULL)"

/* At most this many responses of a sweep get their best values stored (the
 * first ones its specification declares): storing costs a pass over the
 * sweep's results per response; another response's ?best= is counted live. */
#define SQL_SUMMARY_BEST_MAX "16"

/* The summary of the sweep whose id is the expression sweep and whose
 * specification is the jsonb expression spec, as jsonb: job counts per state
 * of each kind, jobs with warnings of each kind, jobs verified, and for the
 * first SQL_SUMMARY_BEST_MAX declared responses the least and largest value
 * and the number of done design jobs with a numeric value (what ?best=NAME
 * shows: nulls and 0 where none has one). */
#define SQL_SUMMARY(sweep, spec) \
    "(SELECT jsonb_build_object(" \
    "   'counts', coalesce(jsonb_object_agg(c.status, c.n) FILTER (WHERE c.kind = 'design'), '{}'), " \
    "   'verification_counts', coalesce(jsonb_object_agg(c.status, c.n) FILTER (WHERE c.kind = 'verify'), '{}'), " \
    "   'jobs_with_warnings', " SQL_WARNED(sweep, "design") ", " \
    "   'verification_jobs_with_warnings', " SQL_WARNED(sweep, "verify") ", " \
    "   'jobs_verified', (SELECT count(*) FROM verifications x WHERE x.sweep_id = " sweep "), " \
    "   'best', (WITH nm AS (SELECT DISTINCT rn.x->>'name' AS name " \
    "                        FROM (SELECT x FROM jsonb_array_elements(CASE WHEN jsonb_typeof(" spec "->'responses') = 'array' " \
    "                                   THEN " spec "->'responses' ELSE '[]' END) x " \
    "                              WHERE jsonb_typeof(x->'name') = 'string' LIMIT " SQL_SUMMARY_BEST_MAX ") rn), " \
    "                 b AS (SELECT nm.name, min((br.responses->>nm.name)::float8) AS lo, " \
    "                              max((br.responses->>nm.name)::float8) AS hi, count(*) AS n " \
    "                       FROM jobs bj JOIN results br ON br.job_id = bj.id CROSS JOIN nm " \
    "                       WHERE bj.sweep_id = " sweep " AND bj.kind = 'design' " \
    "                         AND jsonb_typeof(br.responses->nm.name) = 'number' GROUP BY nm.name) " \
    "            SELECT coalesce(jsonb_object_agg(nm.name, jsonb_build_object('min', b.lo, 'max', b.hi, " \
    "                                                                        'jobs', coalesce(b.n, 0))), '{}') " \
    "            FROM nm LEFT JOIN b ON b.name = nm.name)) " \
    " FROM (SELECT kind, status, count(*) AS n FROM jobs WHERE jobs.sweep_id = " sweep " GROUP BY kind, status) c)"

#endif
