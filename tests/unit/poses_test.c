/*
 * poses_test.c - the body poses kept with every result (common/mbs/output/output.c,
 * mbs_result in mbs.h): frames at sample times, the bounds on their number,
 * and poses equal to the position / angle / orientation channels; the
 * contact points kept at the frames (mbs_result contacts).
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

/* The sample row of a frame's time. */
static const double *s_frame_row(const t_run *r, int f)
{
    return s_row_at(r, r->res.frames[(size_t)f * (size_t)(1 + r->res.nbody * r->res.npose)]);
}

/* A block sticking on an incline by its two corners (ground = A, block =
 * B): at every frame the records are its touching corners, each at the
 * corner placed by the block's pose, and their forces add up to the
 * contact_force channels (an independent sum over the same pairs); at rest
 * they carry the weight. */
static void test_contacts_planar(void)
{
    t_run r;
    t_run_file("examples/block_on_incline_stick.json", NULL, &r);
    CHECK(r.rc == 0);
    const mbs_result *s = &r.res;
    CHECK(s->contact_frames == s->nframe && s->nframe > 100);
    CHECK(s->ncontact_rec >= s->nframe && s->ncontact_rec <= 2 * s->nframe);
    int cx = t_col(&r, "Fx_slope"), cy = t_col(&r, "Fy_slope");
    double a0 = M_PI / 6, w = 0.1, h = 0.05;
    /* the corners relative to the com at t = 0 */
    double com0[2] = {-h / 2 * sin(a0), h / 2 * cos(a0)};
    double k0[2][2] = {{-w / 2 * cos(a0), -w / 2 * sin(a0)}, {w / 2 * cos(a0), w / 2 * sin(a0)}};
    int i = 0, last_sum_ok = 0;
    for (int f = 0; f < s->nframe; f++) {
        const double *row = s_frame_row(&r, f), *pose = s->frames + f * 4 + 1;
        CHECK(row != NULL);
        if (!row) break;
        double F[2] = {0, 0};
        for (; i < s->ncontact_rec && s->contacts[i * MBS_CONTACT_REC] == f; i++) {
            const double *c = s->contacts + i * MBS_CONTACT_REC;
            CHECK(c[2] == 0 && c[3] == -1 && c[6] == 0 && c[9] == 0);
            F[0] += c[7]; F[1] += c[8];
            /* the nearer corner placed by the pose: com + R(da) (k0 - com0) */
            double da = pose[2] - a0, best = INFINITY;
            for (int k = 0; k < 2; k++) {
                double dx = k0[k][0] - com0[0], dy = k0[k][1] - com0[1];
                double px = pose[0] + cos(da) * dx - sin(da) * dy, py = pose[1] + sin(da) * dx + cos(da) * dy;
                best = fmin(best, hypot(c[4] - px, c[5] - py));
            }
            CHECK(best < 1e-7);
            /* pushed out of the slope: along its normal (-sin a, cos a) */
            CHECK(-sin(a0) * c[7] + cos(a0) * c[8] > 0);
        }
        CHECK_NEAR(F[0], row[cx], 1e-9 * (1 + fabs(row[cx])));
        CHECK_NEAR(F[1], row[cy], 1e-9 * (1 + fabs(row[cy])));
        if (f == s->nframe - 1) last_sum_ok = fabs(F[0]) < 1e-3 && fabs(F[1] - 9.81) < 1e-3;
    }
    CHECK(i == s->ncontact_rec);
    CHECK(last_sum_ok);
    t_run_free(&r);
}

/* 100 balls in a box, rigid contacts (Moreau-Jean): records on the balls
 * (ball-wall pairs have the ground as B: the ball's side with -F), each
 * point on its ball's surface. */
static void test_contacts_spatial(void)
{
    const char *sets[] = {"solver.t_end=0.4", NULL};
    t_run r;
    t_run_file("examples/balls_in_box_100.json", sets, &r);
    CHECK(r.rc == 0);
    const mbs_result *s = &r.res;
    long per = 1 + 100 * 7;
    CHECK(s->contact_frames == s->nframe && s->ncontact_rec > 100);
    int up = 0;
    for (int i = 0; i < s->ncontact_rec; i++) {
        const double *c = s->contacts + i * MBS_CONTACT_REC;
        int f = (int)c[0], b = (int)c[2], o = (int)c[3];
        CHECK(f >= 0 && f < s->nframe && b >= 0 && b < 100 && o >= -1 && o < 100 && o != b);
        if (f < 0 || f >= s->nframe || b < 0 || b >= 100) break;
        const double *com = s->frames + f * per + 1 + b * 7;
        CHECK_NEAR(sqrt((c[4] - com[0]) * (c[4] - com[0]) + (c[5] - com[1]) * (c[5] - com[1]) +
                        (c[6] - com[2]) * (c[6] - com[2])), 0.05, 1e-3);
        up += c[9] > 0;
    }
    /* gravity is -z: the floor and the balls below push up more often */
    CHECK(up > s->ncontact_rec / 2);
    printf("  100 balls, %d frames: %d contact points\n", s->nframe, s->ncontact_rec);
    t_run_free(&r);
}

int main(void)
{
    test_contacts_planar();
    test_contacts_spatial();
    test_planar();
    test_spatial();
    test_bounds();
    return CHECK_SUMMARY("poses_test");
}
