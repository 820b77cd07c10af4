/*
 * static.c - the web front end: files of the www directory served at /
 * (read-only, no listings, no Node.js at run time).
 *
 * The directory is the front end's build (build/www, made by mk/web.mk from
 * web/) or, when it was not built, gateway/www.  Rules:
 *  - names are plain relative paths (letters, digits, - _ . /, no ".."),
 *    checked after libmicrohttpd has decoded %XX, so nothing outside the
 *    directory can be named;
 *  - /assets/ holds content-hashed names (Vite): cached for a year,
 *    immutable; everything else, index.html first, is not cached (no-store),
 *    so a new build is picked up at the next load;
 *  - the paths of the front end's views (/sweeps/..., /jobs/..., /models/...,
 *    /compare/...) answer index.html, which routes on the client; other
 *    unknown names are 404;
 *  - every answer carries the Content-Security-Policy (scripts, styles and
 *    connections only from this origin, no inline script, no framing);
 *  - a request that accepts gzip gets NAME.gz where the build made one
 *    (`gzip -9` of the text files above 1 KB, mk/web.mk), with
 *    Content-Encoding: gzip and the type of NAME; every answer says
 *    Vary: Accept-Encoding.
 */
#include "gw.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GW_CSP "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " \
               "connect-src 'self'; font-src 'self'; object-src 'none'; frame-ancestors 'none'; "   \
               "base-uri 'none'; form-action 'self'"

static const char *s_type(const char *path)
{
    static const struct { const char *ext, *type; } t[] = {
        { ".html", "text/html; charset=utf-8" }, { ".css", "text/css; charset=utf-8" },
        { ".js", "text/javascript; charset=utf-8" }, { ".mjs", "text/javascript; charset=utf-8" },
        { ".json", "application/json" }, { ".map", "application/json" },
        { ".svg", "image/svg+xml" }, { ".png", "image/png" }, { ".ico", "image/x-icon" },
        { ".webp", "image/webp" }, { ".woff2", "font/woff2" }, { ".wasm", "application/wasm" },
        { ".txt", "text/plain; charset=utf-8" }, { ".yaml", "text/yaml; charset=utf-8" },
    };
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (dot && slash && dot < slash) dot = NULL;
    for (size_t i = 0; dot && i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(dot, t[i].ext)) return t[i].type;
    return "application/octet-stream";
}

/* A path of one of the front end's views: answered with index.html. */
static int s_app_route(const char *url)
{
    static const char *views[] = { "/sweeps", "/jobs", "/models", "/compare" };
    const char *last = strrchr(url, '/');
    if (strchr(last, '.')) return 0;            /* a file name, not a view */
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
        size_t n = strlen(views[i]);
        if (!strncmp(url, views[i], n) && (url[n] == 0 || url[n] == '/')) return 1;
    }
    return 0;
}

struct MHD_Response *gw_static(const char *url, int accepts_gzip, int *status)
{
    char path[1024];
    struct stat sb;
    /* only plain relative names: letters, digits, - _ . / and no ".." */
    if (url[0] != '/' || strstr(url, "..") || strstr(url, "//") || strlen(url) > 200) return NULL;
    for (const char *p = url; *p; p++)
        if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9') ||
              strchr("-_./", *p))) return NULL;
    int assets = !strncmp(url, "/assets/", 8);
    if (s_app_route(url)) url = "/";
    snprintf(path, sizeof path, "%s%s%s", gw_cfg.www, url, url[strlen(url) - 1] == '/' ? "index.html" : "");
    /* the file compressed at build time (NAME.gz beside NAME, mk/web.mk)
       when the request takes gzip, else the file itself */
    int fd = -1, gz = 0;
    if (accepts_gzip) {
        char zpath[1030];
        snprintf(zpath, sizeof zpath, "%s.gz", path);
        fd = open(zpath, O_RDONLY | O_CLOEXEC);
        if (fd >= 0 && (fstat(fd, &sb) || !S_ISREG(sb.st_mode))) { close(fd); fd = -1; }
        gz = fd >= 0;
    }
    if (fd < 0) {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return NULL;
        if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) { close(fd); return NULL; }
    }
    struct MHD_Response *resp = MHD_create_response_from_fd((uint64_t)sb.st_size, fd);
    if (!resp) { close(fd); return NULL; }
    MHD_add_response_header(resp, "Content-Type", s_type(path));
    if (gz) MHD_add_response_header(resp, "Content-Encoding", "gzip");
    MHD_add_response_header(resp, "Vary", "Accept-Encoding");
    MHD_add_response_header(resp, "Cache-Control", assets ? "public, max-age=31536000, immutable" : "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(resp, "X-Frame-Options", "DENY");
    MHD_add_response_header(resp, "Content-Security-Policy", GW_CSP);
    *status = 200;
    return resp;
}
