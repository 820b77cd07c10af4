/*
 * main.c - build/gateway: configuration (flags, then environment), schema
 * migrations, the HTTP server and the dispatcher; SIGTERM/SIGINT stop it.
 *
 *   gateway [--port N] [--bind ADDR] [--db CONNINFO] [--token T | --token-file F | --no-auth]
 *           [--zmq tcp://127.0.0.1:5555] [--curve-secret-file F --curve-allow F | --zmq-open-insecure]
 *           [--zmq-max-message BYTES] [--token-reads on|off|auto] [--www DIR] [--threads N]
 *           [--lease S] [--heartbeat-ms N] [--liveness N] [--max-attempts N] [--backoff S]
 *           [--job-limit N] [--job-time-limit S] [--max-body BYTES] [--no-dispatch] [--no-warm]
 *           [--migrate-only] [--migrate-to N]
 *   gateway --curve-keygen FILE     write a CurveZMQ key pair, print the public key
 *   gateway --curve-keygen-dir DIR  the key files of a deployment (see s_keygen_dir)
 *
 * The dispatcher's ZeroMQ port needs keys (CurveZMQ, an allow-list of worker
 * public keys): without them the gateway does not start, unless told
 * --zmq-open-insecure (or MBSWEEP_ZMQ_OPEN_INSECURE=1).
 */
#include "gw.h"
#include "svc/db.h"
#include "svc/log.h"

#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

gw_config gw_cfg;

static volatile sig_atomic_t s_stop;
static void s_on_signal(int sig) { (void)sig; s_stop = 1; }

static const char *s_env(const char *name, const char *def)
{
    const char *v = getenv(name);
    return v && *v ? v : def;
}

/* Read the first line of a file (token) into a new string. */
static char *s_read_line(const char *path)
{
    char buf[512];
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
    fclose(f);
    buf[strcspn(buf, "\r\n")] = 0;
    return strdup(buf);
}

/* The built front end next to the executable (build/www for build/gateway
 * and build/san/gateway; mk/web.mk), else gateway/www beside the build
 * directory (the page describing the API), else ./gateway/www. */
static const char *s_default_www(void)
{
    static char path[PATH_MAX + 32];
    static const char *rel[] = { "/www/index.html", "/../www/index.html", "/../gateway/www/index.html",
                                 "/../../gateway/www/index.html" };
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    struct stat sb;
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) *slash = 0;
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            snprintf(path, sizeof path, "%s%s", exe, rel[i]);
            if (stat(path, &sb) == 0) { *strrchr(path, '/') = 0; return path; }
        }
    }
    return "gateway/www";
}

/* Whether an HTTP bind address is loopback only (127.0.0.0/8, ::1, localhost). */
static int s_loopback(const char *addr)
{
    return !strncmp(addr, "127.", 4) || !strcmp(addr, "::1") || !strcmp(addr, "localhost");
}

/* Write a key pair to file (mode 0600): "public Z85" and "secret Z85" lines. */
static int s_write_pair(const char *file, char *pub)
{
    char sec[41];
    if (zmq_curve_keypair(pub, sec) != 0) { fprintf(stderr, "CurveZMQ not available in this libzmq\n"); return 1; }
    mode_t old = umask(077);
    FILE *f = fopen(file, "w");
    umask(old);
    if (!f) { perror(file); return 1; }
    fprintf(f, "public %s\nsecret %s\n", pub, sec);
    return fclose(f) != 0;
}

static int s_keygen(const char *file)
{
    char pub[41];
    if (s_write_pair(file, pub)) return 1;
    printf("%s\n", pub);
    return 0;
}

/* DIR/server.key (the gateway's pair), DIR/server.pub (its public key, for
 * workers), DIR/worker.key (a pair workers may share) and DIR/workers.allow
 * (the allow-list, with worker.key's public key).  Existing files are kept,
 * so running it again changes nothing. */
static int s_keygen_dir(const char *dir)
{
    char path[PATH_MAX], pub[41], sec[41];
    struct stat sb;
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/server.key", dir);
    if (stat(path, &sb) != 0 && s_write_pair(path, pub)) return 1;
    snprintf(path, sizeof path, "%s/server.key", dir);
    char line[128];
    FILE *f = fopen(path, "r");
    pub[0] = 0;
    while (f && fgets(line, sizeof line, f)) if (!strncmp(line, "public ", 7)) sscanf(line + 7, "%40s", pub);
    if (f) fclose(f);
    if (strlen(pub) != 40) { fprintf(stderr, "%s: no public key\n", path); return 1; }
    snprintf(path, sizeof path, "%s/server.pub", dir);
    if (stat(path, &sb) != 0 && (f = fopen(path, "w"))) { fprintf(f, "public %s\n", pub); fclose(f); }
    snprintf(path, sizeof path, "%s/worker.key", dir);
    if (stat(path, &sb) != 0) {
        if (s_write_pair(path, sec)) return 1;
        snprintf(path, sizeof path, "%s/workers.allow", dir);
        if (!(f = fopen(path, "a"))) { perror(path); return 1; }
        fprintf(f, "# worker public keys allowed to connect (one per line); worker.key's:\n%s worker.key\n", sec);
        fclose(f);
    }
    printf("keys in %s: server.key (gateway), server.pub, worker.key, workers.allow\n", dir);
    return 0;
}

static void s_usage(void)
{
    fprintf(stderr, "usage: gateway [--port N] [--bind ADDR] [--db CONNINFO] [--token T|--token-file F|--no-auth]\n"
                    "               [--zmq ENDPOINT] [--curve-secret-file F --curve-allow F | --zmq-open-insecure]\n"
                    "               [--zmq-max-message BYTES] [--token-reads on|off|auto] [--www DIR] [--threads N]\n"
                    "               [--lease S] [--heartbeat-ms N] [--liveness N] [--max-attempts N] [--backoff S]\n"
                    "               [--job-limit N] [--job-time-limit S] [--max-body BYTES] [--no-dispatch] [--no-warm]\n"
                    "               [--migrate-only] [--migrate-to N] | --curve-keygen FILE | --curve-keygen-dir DIR\n"
                    "environment: PORT MBSWEEP_BIND MBSWEEP_DB MBSWEEP_TOKEN MBSWEEP_TOKEN_FILE MBSWEEP_ZMQ_BIND\n"
                    "             MBSWEEP_CURVE_SECRET_FILE MBSWEEP_CURVE_ALLOW MBSWEEP_ZMQ_OPEN_INSECURE=1\n"
                    "             MBSWEEP_TOKEN_READS MBSWEEP_WWW MBSWEEP_NO_AUTH=1\n");
}

int main(int argc, char **argv)
{
    enum { O_PORT = 256, O_BIND, O_DB, O_TOKEN, O_TOKEN_FILE, O_NO_AUTH, O_ZMQ, O_CURVE, O_WWW, O_THREADS,
           O_LEASE, O_HB, O_LIVE, O_ATT, O_BACKOFF, O_LIMIT, O_TLIM, O_BODY, O_NODISP, O_NOWARM, O_MIG, O_MIGTO, O_KEYGEN,
           O_ALLOW, O_OPEN, O_MAXMSG, O_KEYDIR, O_READS };
    static const struct option opts[] = {
        { "port", 1, 0, O_PORT }, { "bind", 1, 0, O_BIND }, { "db", 1, 0, O_DB },
        { "token", 1, 0, O_TOKEN }, { "token-file", 1, 0, O_TOKEN_FILE }, { "no-auth", 0, 0, O_NO_AUTH },
        { "zmq", 1, 0, O_ZMQ }, { "curve-secret-file", 1, 0, O_CURVE }, { "www", 1, 0, O_WWW },
        { "threads", 1, 0, O_THREADS }, { "lease", 1, 0, O_LEASE }, { "heartbeat-ms", 1, 0, O_HB },
        { "liveness", 1, 0, O_LIVE }, { "max-attempts", 1, 0, O_ATT }, { "backoff", 1, 0, O_BACKOFF },
        { "job-limit", 1, 0, O_LIMIT }, { "job-time-limit", 1, 0, O_TLIM }, { "max-body", 1, 0, O_BODY },
        { "no-dispatch", 0, 0, O_NODISP }, { "no-warm", 0, 0, O_NOWARM }, { "migrate-only", 0, 0, O_MIG }, { "migrate-to", 1, 0, O_MIGTO },
        { "curve-keygen", 1, 0, O_KEYGEN }, { "curve-allow", 1, 0, O_ALLOW }, { "zmq-open-insecure", 0, 0, O_OPEN },
        { "zmq-max-message", 1, 0, O_MAXMSG }, { "curve-keygen-dir", 1, 0, O_KEYDIR },
        { "token-reads", 1, 0, O_READS },
        { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    const char *token_file = s_env("MBSWEEP_TOKEN_FILE", NULL), *reads = s_env("MBSWEEP_TOKEN_READS", "auto");
    int migrate_only = 0, migrate_to = 0, opt;
    char host[64];

    log_init("gateway");
    /* defaults, then the environment */
    gw_cfg = (gw_config){
        .bind_addr = s_env("MBSWEEP_BIND", "127.0.0.1"), .port = atoi(s_env("PORT", "8080")),
        .db = s_env("MBSWEEP_DB", s_env("DATABASE_URL", "dbname=mbsweep")),
        .token = s_env("MBSWEEP_TOKEN", NULL), .no_auth = !strcmp(s_env("MBSWEEP_NO_AUTH", "0"), "1"),
        .zmq_bind = s_env("MBSWEEP_ZMQ_BIND", "tcp://127.0.0.1:5555"),
        .curve_secret_file = s_env("MBSWEEP_CURVE_SECRET_FILE", NULL),
        .curve_allow_file = s_env("MBSWEEP_CURVE_ALLOW", NULL),
        .zmq_open = !strcmp(s_env("MBSWEEP_ZMQ_OPEN_INSECURE", "0"), "1"), .zmq_max_message = 16u << 20,
        .www = s_env("MBSWEEP_WWW", NULL), .threads = 4, .statement_timeout_ms = 5000,
        .max_body = 8u << 20, .max_depth = 40, .job_limit = 100000, .max_attempts = 3,
        .lease_seconds = 30, .heartbeat_ms = 1000, .liveness = 3, .backoff_seconds = 1,
        .job_time_limit = 600, .dispatch = 1, .warm = 1, .conn_timeout = 30 };
    while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (opt) {
        case O_PORT: gw_cfg.port = atoi(optarg); break;
        case O_BIND: gw_cfg.bind_addr = optarg; break;
        case O_DB: gw_cfg.db = optarg; break;
        case O_TOKEN: gw_cfg.token = optarg; break;
        case O_TOKEN_FILE: token_file = optarg; break;
        case O_NO_AUTH: gw_cfg.no_auth = 1; break;
        case O_ZMQ: gw_cfg.zmq_bind = optarg; break;
        case O_CURVE: gw_cfg.curve_secret_file = optarg; break;
        case O_WWW: gw_cfg.www = optarg; break;
        case O_THREADS: gw_cfg.threads = atoi(optarg); break;
        case O_LEASE: gw_cfg.lease_seconds = atof(optarg); break;
        case O_HB: gw_cfg.heartbeat_ms = atoi(optarg); break;
        case O_LIVE: gw_cfg.liveness = atoi(optarg); break;
        case O_ATT: gw_cfg.max_attempts = atoi(optarg); break;
        case O_BACKOFF: gw_cfg.backoff_seconds = atof(optarg); break;
        case O_LIMIT: gw_cfg.job_limit = atol(optarg); break;
        case O_TLIM: gw_cfg.job_time_limit = atof(optarg); break;
        case O_BODY: gw_cfg.max_body = (size_t)atol(optarg); break;
        case O_NODISP: gw_cfg.dispatch = 0; break;
        case O_NOWARM: gw_cfg.warm = 0; break;
        case O_MIG: migrate_only = 1; break;
        case O_MIGTO: migrate_to = atoi(optarg); break;
        case O_KEYGEN: return s_keygen(optarg);
        case O_KEYDIR: return s_keygen_dir(optarg);
        case O_ALLOW: gw_cfg.curve_allow_file = optarg; break;
        case O_OPEN: gw_cfg.zmq_open = 1; break;
        case O_MAXMSG: gw_cfg.zmq_max_message = (size_t)atol(optarg); break;
        case O_READS: reads = optarg; break;
        default: s_usage(); return opt == 'h' ? 0 : 2;
        }
    }
    if (token_file && !gw_cfg.token) gw_cfg.token = s_read_line(token_file);
    if (!gw_cfg.www) gw_cfg.www = s_default_www();
    if (gw_cfg.threads < 1 || gw_cfg.threads > 64 || gw_cfg.port < 0 || gw_cfg.port > 65535 ||
        gw_cfg.heartbeat_ms < 50 || gw_cfg.liveness < 1 || gw_cfg.max_attempts < 1 || gw_cfg.job_limit < 1) {
        s_usage(); return 2;
    }
    /* reads need the token: on, off, or (auto) when HTTP listens beyond loopback,
       since models and results can be confidential */
    if (!strcmp(reads, "auto")) gw_cfg.token_reads = !s_loopback(gw_cfg.bind_addr);
    else if (!strcmp(reads, "on") || !strcmp(reads, "off")) gw_cfg.token_reads = !strcmp(reads, "on");
    else { s_usage(); return 2; }
    /* said before anything is bound, so that the choice shows even when the bind fails */
    if (!migrate_only)
        log_info("http: %s (--token-reads %s, bind %s)", gw_cfg.token_reads ? "reads need the token" : "reads open",
                 reads, gw_cfg.bind_addr);
    if (!migrate_only && !gw_cfg.no_auth && (!gw_cfg.token || strlen(gw_cfg.token) < 8)) {
        log_error("no API token (8 characters or more): set MBSWEEP_TOKEN, --token, --token-file, "
                  "or disable with --no-auth for local use");
        return 2;
    }
    /* the ZeroMQ port: keys and allow-list, or explicitly open */
    if (!migrate_only && gw_cfg.dispatch) {
        if (gw_cfg.zmq_open && (gw_cfg.curve_secret_file || gw_cfg.curve_allow_file)) {
            log_error("--zmq-open-insecure and CurveZMQ keys both given: choose one");
            return 2;
        }
        if (!gw_cfg.zmq_open && (!gw_cfg.curve_secret_file || !gw_cfg.curve_allow_file)) {
            log_error("no CurveZMQ keys for the worker port: give --curve-secret-file and --curve-allow "
                      "(make keys, or gateway --curve-keygen-dir DIR), or run it open with --zmq-open-insecure");
            return 2;
        }
        if (gw_cfg.zmq_open) gw_cfg.curve_secret_file = NULL;
    }
    gethostname(host, sizeof host);
    host[sizeof host - 1] = 0;
    snprintf(gw_cfg.gateway_id, sizeof gw_cfg.gateway_id, "%s:%d", host, (int)getpid());

    /* schema first: every gateway brings the database to the current version */
    PGconn *db = NULL;
    for (int i = 0; i < 50 && !(db = db_connect(gw_cfg.db, "mbsweep-migrate", 0, 0)); i++) usleep(200000);
    if (!db) { log_error("cannot reach the database"); return 1; }
    int version = db_migrate(db, migrate_to);
    PQfinish(db);
    if (version < 0) return 1;
    log_info("schema at version %d", version);
    if (migrate_only) return 0;

    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = { .sa_handler = s_on_signal };
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    if (gw_cfg.dispatch && gw_dispatch_start()) return 1;
    struct MHD_Daemon *d = gw_http_start();
    if (!d) { gw_dispatch_stop(); return 1; }
    /* the gateway that finishes sweeps makes their views (warm.c) */
    if (gw_cfg.dispatch && gw_cfg.warm && gw_warm_start()) { MHD_stop_daemon(d); gw_dispatch_stop(); return 1; }
    log_info("listening on http://%s:%d/ (auth %s, %s, %d HTTP threads)", gw_cfg.bind_addr, gw_cfg.port,
             gw_cfg.no_auth ? "OFF" : "on", gw_cfg.token_reads ? "reads need the token" : "reads open",
             gw_cfg.threads);
    while (!s_stop) pause();
    log_info("stopping");
    gw_warm_stop();
    MHD_stop_daemon(d);
    gw_dispatch_stop();
    gw_db_close_all();
    return 0;
}
