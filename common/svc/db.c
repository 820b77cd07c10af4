/* db.c - see db.h. */
#include "db.h"
#include "log.h"

#include <stdio.h>
#include <string.h>

/* The session settings go into the connection's options so that PQreset
 * (after PostgreSQL restarted) restores them. */
PGconn *db_connect(const char *conninfo, const char *app, int statement_timeout_ms, int async)
{
    char opts[160];
    snprintf(opts, sizeof opts, "-c TimeZone=UTC -c statement_timeout=%d%s", statement_timeout_ms > 0 ? statement_timeout_ms : 0,
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
