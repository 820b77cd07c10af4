/* static.c - files of gateway/www served at / (read-only, no listings). */
#include "gw.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *s_type(const char *path)
{
    static const struct { const char *ext, *type; } t[] = {
        { ".html", "text/html; charset=utf-8" }, { ".css", "text/css; charset=utf-8" },
        { ".js", "text/javascript; charset=utf-8" }, { ".json", "application/json" },
        { ".svg", "image/svg+xml" }, { ".png", "image/png" }, { ".ico", "image/x-icon" },
        { ".txt", "text/plain; charset=utf-8" }, { ".yaml", "text/yaml; charset=utf-8" },
    };
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(dot, t[i].ext)) return t[i].type;
    return "application/octet-stream";
}

struct MHD_Response *gw_static(const char *url, int *status)
{
    char path[1024];
    struct stat sb;
    /* only plain relative names: letters, digits, - _ . / and no ".." */
    if (url[0] != '/' || strstr(url, "..") || strlen(url) > 200) return NULL;
    for (const char *p = url; *p; p++)
        if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9') ||
              strchr("-_./", *p))) return NULL;
    snprintf(path, sizeof path, "%s%s%s", gw_cfg.www, url, url[strlen(url) - 1] == '/' ? "index.html" : "");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) { close(fd); return NULL; }
    struct MHD_Response *resp = MHD_create_response_from_fd((uint64_t)sb.st_size, fd);
    if (!resp) { close(fd); return NULL; }
    const char *ct = s_type(path);
    MHD_add_response_header(resp, "Content-Type", ct);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(resp, "X-Frame-Options", "DENY");
    if (!strncmp(ct, "text/html", 9))
        MHD_add_response_header(resp, "Content-Security-Policy",
                                "default-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'");
    *status = 200;
    return resp;
}
