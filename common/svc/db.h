/*
 * db.h - small helpers around libpq for the gateway.
 *
 * Every statement goes through PQexecParams with text parameters: SQL text is
 * constant, values are never pasted into it.  A connection lost while idle
 * (e.g. PostgreSQL restarted) is re-established and the statement retried
 * once; a statement lost inside a transaction is not retried (the caller sees
 * the error and answers 503 or retries the whole transaction).
 */
#ifndef SVC_DB_H
#define SVC_DB_H

#include <libpq-fe.h>

typedef struct {
    int version;
    const char *name;
    const char *sql;
} db_migration;

/* Embedded sql/NNN_*.sql, ascending (generated at build time). */
extern const db_migration db_migrations[];
extern const int db_nmigrations;

/* Connect and set the session up (application_name, TimeZone UTC, JIT
 * compilation off, statement_timeout in ms when > 0, synchronous_commit off
 * when async).  Returns NULL on failure
 * (logged).  Caller frees with PQfinish. */
PGconn *db_connect(const char *conninfo, const char *app, int statement_timeout_ms, int async);

/* Execute `sql` with n text parameters (NULL = SQL NULL).  *c may be
 * replaced by a new connection.  Never returns NULL; check with db_ok. */
PGresult *db_exec(PGconn **c, const char *sql, int n, const char *const *params);

/* Same with per-parameter lengths and formats (binary parameters) and the
 * result format (0 text, 1 binary). */
PGresult *db_execb(PGconn **c, const char *sql, int n, const char *const *params,
                   const int *lengths, const int *formats, int result_format);

/* A statement prepared once per connection (PQprepare) and then executed by
 * name (PQexecPrepared): no parse, and after a few runs no planning either.
 * Declare one per statement, static, with its name and SQL; parameter types
 * come from the casts in the SQL.  `pid` is the server process it was
 * prepared on: after a reconnection (a new process) it is prepared again.
 * Not shared between threads (one connection's statements). */
typedef struct {
    const char *name;
    const char *sql;
    int pid;              /* backend it is prepared on, 0 = not yet       */
} db_stmt;

/* db_execb for a prepared statement: prepares it first when this
 * connection's backend has not got it (first use, after a reconnection).
 * Same reconnection rule as db_execb.  Never returns NULL. */
PGresult *db_execp(PGconn **c, db_stmt *s, int n, const char *const *params,
                   const int *lengths, const int *formats, int result_format);

/* db_cmd for a prepared statement (db_execp): 0 or -1 (logged with `what`). */
int db_cmdp(PGconn **c, const char *what, db_stmt *s, int n, const char *const *params);

/* 1 if the result is COMMAND_OK or TUPLES_OK. */
int db_ok(const PGresult *r);

/* Execute and discard; returns 0 or -1 (logged with `what`). */
int db_cmd(PGconn **c, const char *what, const char *sql, int n, const char *const *params);

/* Apply the embedded migrations above the current version, up to `upto`
 * (0 = all), each in its own transaction, serialised between gateways by an
 * advisory lock.  Returns the schema version reached, or -1. */
int db_migrate(PGconn *c, int upto);

#endif
