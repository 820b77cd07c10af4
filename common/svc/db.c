/* db.c - see db.h. */
#include "db.h"
#include "log.h"

#include <stdio.h>
#include <string.h>

/* The session settings go into the connection's options so that PQreset
 * (after PostgreSQL restarted) restores them.  jit=off: PostgreSQL compiles a
 * statement whose estimated cost passes jit_above_cost (100000) at each
 * execution, 0.3 to 0.5 s here, whatever it then reads; the service's
 * statements are short (the sweeps list with a summary per sweep, the
 * dispatcher's pass that finishes sweeps) and that compilation was most of
 * their time (bench/README.md, "Sweeps list poll"). */
PGconn *db_connect(const char *conninfo, const char *app, int statement_timeout_ms, int async)
{
    char opts[160];
    snprintf(opts, sizeof opts, "-c TimeZone=UTC -c jit=off -c statement_timeout=%d%s", statement_timeout_ms > 0 ? statement_timeout_ms : 0,
             async ? " -c synchronous_commit=off" : "");
    const char *keys[] = { "dbname", "application_name", "options", "connect_timeout", NULL };
    const char *vals[] = { conninfo, app, opts, "5", NULL };
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (PQstatus(c) != CONNECTION_OK) {
        log_warn("db: connect failed: %s", PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    return c;
}

int db_ok(const PGresult *r)
{
    ExecStatusType s = PQresultStatus(r);
    return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
}

PGresult *db_execb(PGconn **c, const char *sql, int n, const char *const *params,
                   const int *lengths, const int *formats, int result_format)
{
    /* remember whether a lost statement can be retried: only outside a transaction */
    int idle = PQtransactionStatus(*c) == PQTRANS_IDLE;
    PGresult *r = PQexecParams(*c, sql, n, NULL, params, lengths, formats, result_format);
    if (!db_ok(r) && PQstatus(*c) == CONNECTION_BAD) {
        PQclear(r);
        log_warn("db: connection lost, reconnecting");
        PQreset(*c);
        if (idle && PQstatus(*c) == CONNECTION_OK)
            return PQexecParams(*c, sql, n, NULL, params, lengths, formats, result_format);
        return PQmakeEmptyPGresult(*c, PGRES_FATAL_ERROR);
    }
    return r;
}

/* Prepare s on *c unless its backend has it already.  0 or -1 (the error
 * result in *err, owned by the caller). */
static int s_prepare(PGconn *c, db_stmt *s, PGresult **err)
{
    if (s->pid && s->pid == PQbackendPID(c)) return 0;
    PGresult *r = PQprepare(c, s->name, s->sql, 0, NULL);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) { *err = r; return -1; }
    PQclear(r);
    s->pid = PQbackendPID(c);
    return 0;
}

PGresult *db_execp(PGconn **c, db_stmt *s, int n, const char *const *params,
                   const int *lengths, const int *formats, int result_format)
{
    PGresult *r = NULL;
    int idle = PQtransactionStatus(*c) == PQTRANS_IDLE;
    if (s_prepare(*c, s, &r) == 0)
        r = PQexecPrepared(*c, s->name, n, params, lengths, formats, result_format);
    /* a new backend that happens to have the old one's pid: prepare again */
    const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    if (idle && state && !strcmp(state, "26000")) {
        PQclear(r);
        s->pid = 0;
        if (s_prepare(*c, s, &r) != 0) return r;
        r = PQexecPrepared(*c, s->name, n, params, lengths, formats, result_format);
    }
    if (!db_ok(r) && PQstatus(*c) == CONNECTION_BAD) {
        /* as db_execb: reconnect, and retry only a statement outside a transaction */
        PQclear(r);
        log_warn("db: connection lost, reconnecting");
        PQreset(*c);
        if (idle && PQstatus(*c) == CONNECTION_OK) {
            if (s_prepare(*c, s, &r) != 0) return r;
            return PQexecPrepared(*c, s->name, n, params, lengths, formats, result_format);
        }
        return PQmakeEmptyPGresult(*c, PGRES_FATAL_ERROR);
    }
    return r;
}

PGresult *db_exec(PGconn **c, const char *sql, int n, const char *const *params)
{
    return db_execb(c, sql, n, params, NULL, NULL, 0);
}

int db_cmd(PGconn **c, const char *what, const char *sql, int n, const char *const *params)
{
    PGresult *r = db_exec(c, sql, n, params);
    int ok = db_ok(r);
    if (!ok) log_warn("db: %s: %s", what, PQresultErrorMessage(r));
    PQclear(r);
    return ok ? 0 : -1;
}

int db_cmdp(PGconn **c, const char *what, db_stmt *s, int n, const char *const *params)
{
    PGresult *r = db_execp(c, s, n, params, NULL, NULL, 0);
    int ok = db_ok(r);
    if (!ok) log_warn("db: %s: %s", what, PQresultErrorMessage(r));
    PQclear(r);
    return ok ? 0 : -1;
}
