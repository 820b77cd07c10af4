/*
 * gzip.c - HTTP compression of the gateway's answers (zlib).
 *
 *  - gw_accepts_gzip: whether a request's Accept-Encoding allows gzip
 *    (RFC 9110: "gzip", "x-gzip" or "*", not with q=0);
 *  - gw_gzip: a whole body, for replies made in memory (JSON, CSV) above
 *    GW_GZIP_MIN bytes;
 *  - gw_gzip_reader: a streamed reply (results.csv) compressed block by
 *    block as libmicrohttpd pulls it.
 *
 * Level 1 (Z_BEST_SPEED): the sweep view's 8.9 MB of /columns for 10^5 jobs
 * become 2.0 MB in about 60 ms per 4.4 MB half on this machine, where level
 * 6 takes five times as long for a third less (measured with zlib on the
 * body).  The static files are compressed once, at build time (gzip -9,
 * mk/web.mk), and served by static.c.
 */
#include "gw.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#define GZ_LEVEL Z_BEST_SPEED
#define GZ_WINDOW (15 + 16)       /* deflate with a gzip header and trailer   */

/* q of one coding's parameters (";q=0.5"), 1 when absent. */
static double s_q(const char *p, const char *end)
{
    while (p < end) {
        while (p < end && (*p == ';' || *p == ' ' || *p == '\t')) p++;
        if (end - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') return strtod(p + 2, NULL);
        while (p < end && *p != ';') p++;
    }
    return 1;
}

int gw_accepts_gzip(struct MHD_Connection *c)
{
    const char *h = c ? MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept-Encoding") : NULL;
    int gzip = -1, star = -1;                 /* -1 not named, 0 refused, 1 accepted */
    if (!h) return 0;
    for (const char *p = h; *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',') p++;
        const char *tok = p;
        while (*p && *p != ',' && *p != ';' && *p != ' ' && *p != '\t') p++;
        size_t n = (size_t)(p - tok);
        const char *params = p;
        while (*p && *p != ',') p++;
        int ok = s_q(params, p) > 0;
        if ((n == 4 && !strncasecmp(tok, "gzip", 4)) || (n == 6 && !strncasecmp(tok, "x-gzip", 6))) gzip = ok;
        else if (n == 1 && *tok == '*') star = ok;
    }
    return gzip >= 0 ? gzip : star > 0;
}

char *gw_gzip(const char *buf, size_t len, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, GZ_LEVEL, Z_DEFLATED, GZ_WINDOW, 8, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
    size_t cap = deflateBound(&z, (uLong)len);
    char *out = malloc(cap);
    if (!out) { deflateEnd(&z); return NULL; }
    z.next_in = (Bytef *)buf; z.avail_in = (uInt)len;
    z.next_out = (Bytef *)out; z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    *out_len = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) { free(out); return NULL; }
    return out;
}

char *gw_gunzip(const char *buf, size_t len, size_t max, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, GZ_WINDOW) != Z_OK) return NULL;
    size_t cap = len * 4 + 1024;
    if (cap > max + 1) cap = max + 1;
    char *out = malloc(cap);
    int rc = Z_OK;
    z.next_in = (Bytef *)buf; z.avail_in = (uInt)len;
    while (out && rc == Z_OK) {
        if (z.total_out == cap) {                 /* full: grow, within max */
            if (cap > max) break;
            size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
            char *n = realloc(out, ncap);
            if (!n) break;
            out = n; cap = ncap;
        }
        z.next_out = (Bytef *)out + z.total_out; z.avail_out = (uInt)(cap - z.total_out);
        rc = inflate(&z, Z_NO_FLUSH);
    }
    *out_len = z.total_out;
    inflateEnd(&z);
    if (rc != Z_STREAM_END || *out_len > max) { free(out); return NULL; }
    return out;
}

/* ---- a streamed reply, compressed as it is pulled ------------------------------------ */

typedef struct {
    ssize_t (*reader)(void *cls, uint64_t pos, char *buf, size_t max);
    void (*free_cls)(void *cls);
    void *cls;
    uint64_t pos;                 /* bytes read from the inner reader         */
    z_stream z;
    char in[64 * 1024];
    int ended;                    /* the inner reader has ended: finishing    */
    int done;                     /* the gzip trailer is out                  */
} s_gzr;

static ssize_t s_gzr_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    s_gzr *g = cls;
    (void)pos;
    if (g->done) return MHD_CONTENT_READER_END_OF_STREAM;
    g->z.next_out = (Bytef *)buf; g->z.avail_out = (uInt)max;
    /* until some output is made: feed the inner reader's blocks, then finish */
    while (g->z.avail_out == max) {
        if (g->z.avail_in == 0 && !g->ended) {
            ssize_t n = g->reader(g->cls, g->pos, g->in, sizeof g->in);
            if (n == MHD_CONTENT_READER_END_OF_STREAM) g->ended = 1;
            else if (n < 0) return MHD_CONTENT_READER_END_WITH_ERROR;
            else if (n == 0) break;           /* nothing now: asked again later */
            else { g->pos += (uint64_t)n; g->z.next_in = (Bytef *)g->in; g->z.avail_in = (uInt)n; }
        }
        int rc = deflate(&g->z, g->ended ? Z_FINISH : Z_NO_FLUSH);
        if (rc == Z_STREAM_END) { g->done = 1; break; }
        if (rc != Z_OK && rc != Z_BUF_ERROR) return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    return (ssize_t)(max - g->z.avail_out);
}

static void s_gzr_free(void *cls)
{
    s_gzr *g = cls;
    if (g->free_cls && g->cls) g->free_cls(g->cls);
    deflateEnd(&g->z);
    free(g);
}

int gw_gzip_reader(gw_req *r)
{
    s_gzr *g = calloc(1, sizeof *g);
    if (!g) return -1;
    if (deflateInit2(&g->z, GZ_LEVEL, Z_DEFLATED, GZ_WINDOW, 8, Z_DEFAULT_STRATEGY) != Z_OK) { free(g); return -1; }
    g->reader = r->reader; g->free_cls = r->free_cls; g->cls = r->reader_cls;
    r->reader = s_gzr_read; r->free_cls = s_gzr_free; r->reader_cls = g;
    return 0;
}
