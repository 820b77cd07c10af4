/*
 * routes.c - the route table: method, path pattern ('*' = one segment),
 * handler, whether it writes (token required) and takes a JSON body.
 * Handlers live one file per endpoint group (api_*.c).
 */
#include "gw.h"

int api_models_create(gw_req *r);
int api_models_list(gw_req *r);
int api_models_get(gw_req *r);
int api_sweeps_create(gw_req *r);
int api_sweeps_list(gw_req *r);
int api_sweeps_get(gw_req *r);
int api_sweeps_cancel(gw_req *r);
int api_sweeps_pause(gw_req *r);
int api_sweeps_resume(gw_req *r);
int api_sweeps_jobs(gw_req *r);
int api_sweeps_results_csv(gw_req *r);
int api_sweeps_table(gw_req *r);
int api_sweeps_columns(gw_req *r);
int api_sweeps_envelope(gw_req *r);
int api_samples(gw_req *r);
int api_jobs_get(gw_req *r);
int api_jobs_result(gw_req *r);
int api_jobs_poses(gw_req *r);
int api_models_geometry(gw_req *r);
int api_compare_deactivation(gw_req *r);
int api_compare(gw_req *r);
int api_healthz(gw_req *r);
int api_metrics(gw_req *r);
int api_workers_list(gw_req *r);

const gw_route gw_routes[] = {
    { "POST", "/api/v1/models",                  api_models_create,   1, 1, "models_create" },
    { "GET",  "/api/v1/models",                  api_models_list,     0, 0, "models_list" },
    { "GET",  "/api/v1/models/*",                api_models_get,      0, 0, "models_get" },
    { "GET",  "/api/v1/models/*/geometry",       api_models_geometry, 0, 0, "models_geometry" },
    { "POST", "/api/v1/sweeps",                  api_sweeps_create,   1, 1, "sweeps_create" },
    { "GET",  "/api/v1/sweeps",                  api_sweeps_list,     0, 0, "sweeps_list" },
    { "GET",  "/api/v1/sweeps/*",                api_sweeps_get,      0, 0, "sweeps_get" },
    { "POST", "/api/v1/sweeps/*/cancel",         api_sweeps_cancel,   1, 0, "sweeps_cancel" },
    { "POST", "/api/v1/sweeps/*/pause",          api_sweeps_pause,    1, 0, "sweeps_pause" },
    { "POST", "/api/v1/sweeps/*/resume",         api_sweeps_resume,   1, 0, "sweeps_resume" },
    { "GET",  "/api/v1/sweeps/*/jobs",           api_sweeps_jobs,     0, 0, "sweeps_jobs" },
    { "GET",  "/api/v1/sweeps/*/results.csv",    api_sweeps_results_csv, 0, 0, "sweeps_results_csv" },
    { "GET",  "/api/v1/sweeps/*/table",          api_sweeps_table,    0, 0, "sweeps_table" },
    { "GET",  "/api/v1/sweeps/*/columns",        api_sweeps_columns,  0, 0, "sweeps_columns" },
    { "GET",  "/api/v1/sweeps/*/envelope",       api_sweeps_envelope, 0, 0, "sweeps_envelope" },
    { "GET",  "/api/v1/jobs/*",                  api_jobs_get,        0, 0, "jobs_get" },
    { "GET",  "/api/v1/jobs/*/result",           api_jobs_result,     0, 0, "jobs_result" },
    { "GET",  "/api/v1/jobs/*/poses",            api_jobs_poses,      0, 0, "jobs_poses" },
    { "GET",  "/api/v1/samples",                 api_samples,         0, 0, "samples" },
    { "GET",  "/api/v1/compare/deactivation",    api_compare_deactivation, 0, 0, "compare_deactivation" },
    { "GET",  "/api/v1/compare",                 api_compare,         0, 0, "compare" },
    { "GET",  "/api/v1/workers",                 api_workers_list,    0, 0, "workers_list" },
    { "GET",  "/healthz",                        api_healthz,         0, 0, "healthz" },
    { "GET",  "/metrics",                        api_metrics,         0, 0, "metrics" },
};
const int gw_nroutes = sizeof gw_routes / sizeof gw_routes[0];
