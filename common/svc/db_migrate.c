/* db_migrate.c - the migration runner of db.h. */
#include "db.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>

/* Run a constant SQL script (several statements) and report failure. */
static int s_script(PGconn *c, const char *what, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    int ok = db_ok(r);
    if (!ok) log_error("migrate: %s: %s", what, PQresultErrorMessage(r));
    PQclear(r);
    return ok ? 0 : -1;
}

int db_migrate(PGconn *c, int upto)
{
    int current = 0, rc = -1;
    PGresult *r;
    /* one gateway at a time: a session-level advisory lock */
    if (s_script(c, "lock", "SELECT pg_advisory_lock(7262001)")) return -1;
    if (s_script(c, "table", "CREATE TABLE IF NOT EXISTS schema_migrations ("
                             " version integer PRIMARY KEY, name text NOT NULL,"
                             " applied_at timestamptz NOT NULL DEFAULT now())")) goto out;
    r = PQexec(c, "SELECT coalesce(max(version), 0) FROM schema_migrations");
    if (!db_ok(r)) { log_error("migrate: %s", PQresultErrorMessage(r)); PQclear(r); goto out; }
    current = atoi(PQgetvalue(r, 0, 0));
    PQclear(r);
    /* each missing migration in its own transaction, recorded in the same one */
    for (int i = 0; i < db_nmigrations; i++) {
        const db_migration *m = &db_migrations[i];
        char ver[16];
        if (m->version <= current || (upto > 0 && m->version > upto)) continue;
        snprintf(ver, sizeof ver, "%d", m->version);
        const char *p[] = { ver, m->name };
        if (s_script(c, "begin", "BEGIN")) goto out;
        if (s_script(c, m->name, m->sql)) { s_script(c, "rollback", "ROLLBACK"); goto out; }
        r = PQexecParams(c, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                         2, NULL, p, NULL, NULL, 0);
        if (!db_ok(r)) { log_error("migrate: record: %s", PQresultErrorMessage(r)); PQclear(r);
                         s_script(c, "rollback", "ROLLBACK"); goto out; }
        PQclear(r);
        if (s_script(c, "commit", "COMMIT")) goto out;
        log_info("migrate: applied %s", m->name);
        current = m->version;
    }
    rc = current;
out:
    s_script(c, "unlock", "SELECT pg_advisory_unlock(7262001)");
    return rc;
}
