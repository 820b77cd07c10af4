/*
 * poses_test.c - the body poses kept with every result (common/mbs/output/output.c,
 * mbs_result in mbs.h): frames at sample times, the bounds on their number,
 * and poses equal to the position / angle / orientation channels.
 */
#include "check.h"
#include "testutil.h"

#include <math.h>

/* Planar body with position, angle and a point channel off the com. */
static const char *FREE_FALL =
    "{\"dimension\": 2, \"gravity\": [0, -9.81],"
    " \"bodies\": [{\"name\": \"b\", \"mass\": 2, \"inertia\": 0.1, \"com\": [0, 10], \"angle\": 0.3,"
    "   \"velocity\": [1, 0], \"angular_velocity\": 4}],"
    " \"solver\": {\"t_end\": 3},"
    " \"outputs\": {\"interval\": 0.01, \"channels\": ["
    "   {\"name\": \"x\", \"quantity\": \"position\", \"body\": \"b\", \"component\": \"x\"},"
    "   {\"name\": \"y\", \"quantity\": \"position\", \"body\": \"b\", \"component\": \"y\"},"
    "   {\"name\": \"px\", \"quantity\": \"position\", \"body\": \"b\", \"point\": [0.5, 10.2], \"component\": \"x\"},"
    "   {\"name\": \"th\", \"quantity\": \"angle\", \"body\": \"b\"}]}}";

/* The sample row whose time is t (frames are taken at sample times). */
static const double *s_row_at(const t_run *r, double t)
{
    int ncol = 1 + r->res.nchannel;
    for (int i = 0; i < r->res.nsample; i++)
        if (r->res.rows[i * ncol] == t) return r->res.rows + i * ncol;
    return NULL;
}

static void test_planar(void)
{
    t_run r;
    t_run_text(FREE_FALL, NULL, &r);
    CHECK(r.rc == 0);
    const mbs_result *s = &r.res;
    /* 301 samples: every 2nd one, 151 frames <= 256, the last at t_end */
    CHECK(s->nsample == 301);
    CHECK(s->nbody == 1 && s->npose == 3);
    CHECK(s->nframe <= MBS_POSE_FRAMES_MAX && s->nframe == 151);
    CHECK(s->frames[(s->nframe - 1) * 4] == 3.0);
    for (int f = 0; f < s->nframe; f++) {
        const double *p = s->frames + f * 4, *row = s_row_at(&r, p[0]);
        CHECK(row != NULL);
        if (!row) break;
        CHECK_NEAR(p[1], row[1], 1e-12);
        CHECK_NEAR(p[2], row[2], 1e-12);
        /* the angle continues past pi (4 rad/s for 3 s) */
        CHECK_NEAR(p[3], row[4], 1e-9);
        /* a body point placed by the pose: com + R(a - a0) (p0 - com0), to
         * within the rigid-body constraints' violation (integrated to the
         * default tolerance, so |e1| drifts by ~1e-9 here) */
        double da = p[3] - 0.3, dx = 0.5, dy = 0.2;
        CHECK_NEAR(p[1] + cos(da) * dx - sin(da) * dy, row[3], 1e-7);
    }
    CHECK(s->frames[(s->nframe - 1) * 4 + 3] > 12);
    t_run_free(&r);
}

static void test_spatial(void)
{
    const char *sets[] = {"solver.t_end=0.5", NULL};
    t_run r;
    t_run_file("examples/iftomm_spatial_slider_crank.json", sets, &r);
    CHECK(r.rc == 0);
    const mbs_result *s = &r.res;
    int per = 1 + 3 * 7, xs = t_col(&r, "x_slider");
    CHECK(s->nbody == 3 && s->npose == 7 && s->nframe == s->nsample);
    for (int f = 0; f < s->nframe; f++) {
        const double *p = s->frames + f * per;
        /* the slider's com is the channel's point */
        CHECK_NEAR(p[1 + 2 * 7], s->rows[f * (1 + s->nchannel) + xs], 1e-12);
        for (int b = 0; b < 3; b++) {
            const double *q = p + 1 + b * 7 + 3;
            CHECK_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1, 1e-12);
            /* sign kept continuous from frame to frame */
            if (f > 0) {
                const double *qp = q - per;
                CHECK(q[0] * qp[0] + q[1] * qp[1] + q[2] * qp[2] + q[3] * qp[3] > 0);
            }
        }
    }
    t_run_free(&r);
}

/* Many samples and many bodies: both bounds hold. */
static void test_bounds(void)
{
    t_run r;
    t_run_file("examples/pendulum_small.json", NULL, &r);
    CHECK(r.rc == 0);
    CHECK(r.res.nsample == 10001);
    CHECK(r.res.nframe <= MBS_POSE_FRAMES_MAX && r.res.nframe > MBS_POSE_FRAMES_MAX / 2);
    CHECK(r.res.frames[(r.res.nframe - 1) * 4] == r.res.rows[(r.res.nsample - 1) * (1 + r.res.nchannel)]);
    t_run_free(&r);
    const char *sets[] = {"solver.t_end=0.1", NULL};
    t_run_file("examples/balls_in_box_100.json", sets, &r);
    CHECK(r.rc == 0);
    long per = 1 + 100 * 7;
    CHECK(r.res.nbody == 100 && r.res.nframe * per <= MBS_POSE_VALUES_MAX);
    printf("  100 balls, %d samples: %d frames of %ld values\n", r.res.nsample, r.res.nframe, per);
    t_run_free(&r);
}

int main(void)
{
    test_planar();
    test_spatial();
    test_bounds();
    return CHECK_SUMMARY("poses_test");
}
