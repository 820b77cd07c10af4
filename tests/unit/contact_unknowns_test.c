/*
 * contact_unknowns_test.c - solver.contact_force_unknowns (system_contacts.c,
 * sparse.c): the compliant contacts' force components as unknowns of the
 * BDF Newton matrix, the ADAMS form of seed 002.
 *  - sparse.c: compression with duplicates, KLU factor and solve, the
 *    pattern check (analyse only when it changes);
 *  - the compliant examples move as with force elements, within the
 *    integrator's tolerance (bouncing ball apexes, block on an incline, cam
 *    follower contact force, a short chain drive);
 *  - deactivation on and off agree, and their system dimensions differ by
 *    the unknowns of the pairs outside the active set;
 *  - parser errors for the option.
 * Timings are printed, not checked (bench/contact_unknowns.sh).
 */
#include "check.h"
#include "testutil.h"

#include "mbs/linalg/sparse.h"

/* sparse.c on a 4 x 4 nonsymmetric matrix given with split duplicates and
 * a zero diagonal (pivoting), against its exact solution. */
static void test_sparse(void)
{
    /* A = [0 2 0 1; 3 0 0 0; 0 1 4 0; 1 0 0 5], x = (1, 2, 3, 4) */
    static const int ti[] = {0, 0, 1, 2, 2, 3, 3, 0, 2};
    static const int tj[] = {1, 3, 0, 1, 2, 0, 3, 1, 2};
    static const double tv[] = {1.5, 1, 3, 1, 1, 1, 5, 0.5, 3};
    const double x[4] = {1, 2, 3, 4};
    double b[4] = {2 * 2 + 4, 3 * 1, 2 + 4 * 3, 1 + 5 * 4};
    mbs_sparse *s = mbs_sparse_new(4, 9);
    CHECK(s != NULL);
    if (!s) return;
    int analysed = 0;
    mbs_sparse_begin(s, 4);
    for (int k = 0; k < 9; k++) mbs_sparse_add(s, ti[k], tj[k], tv[k]);
    CHECK(mbs_sparse_factor(s, &analysed) == 0 && analysed == 1);
    CHECK(mbs_sparse_nnz(s) == 7);                      /* two duplicates summed */
    CHECK(mbs_sparse_get(s, 0, 1) == 2.0 && mbs_sparse_get(s, 2, 2) == 4.0);
    CHECK(mbs_sparse_solve(s, b) == 0);
    for (int i = 0; i < 4; i++) CHECK_NEAR(b[i], x[i], 1e-14 * 5); /* cond(A) ~ 5: rounding only */
    /* same pattern, new values: no new analysis */
    mbs_sparse_begin(s, 4);
    for (int k = 0; k < 9; k++) mbs_sparse_add(s, ti[k], tj[k], 2 * tv[k]);
    CHECK(mbs_sparse_factor(s, &analysed) == 0 && analysed == 0);
    double b2[4] = {2 * (2 * 2 + 4), 2 * 3, 2 * (2 + 4 * 3), 2 * (1 + 5 * 4)};
    CHECK(mbs_sparse_solve(s, b2) == 0);
    for (int i = 0; i < 4; i++) CHECK_NEAR(b2[i], x[i], 1e-14 * 5);
    /* a new entry: analysed again; one entry too many: refused */
    mbs_sparse_begin(s, 4);
    for (int k = 0; k < 8; k++) mbs_sparse_add(s, ti[k], tj[k], tv[k]);
    mbs_sparse_add(s, 1, 1, 1.0);
    CHECK(mbs_sparse_factor(s, &analysed) == 0 && analysed == 1);
    mbs_sparse_begin(s, 4);
    for (int k = 0; k < 10; k++) mbs_sparse_add(s, k % 4, k % 4, 1.0);
    CHECK(mbs_sparse_factor(s, &analysed) == MBS_SPARSE_EFULL);
    mbs_sparse_free(&s);
    CHECK(s == NULL);
}

/* Largest difference of channel c between two runs, relative to the
 * channel's largest magnitude in a. */
static double s_reldiff(const t_run *a, const t_run *b, const char *ch)
{
    int c = t_col(a, ch), w = 1 + a->res.nchannel;
    double scale = 0;
    for (int i = 0; c > 0 && i < a->res.nsample; i++) scale = fmax(scale, fabs(a->res.rows[(size_t)i * w + c]));
    return t_maxdiff(a, b, ch) / (scale > 0 ? scale : 1);
}

/* Run an example with force elements (fe) and with force unknowns (fu). */
static void s_both(const char *path, const char *t_end, t_run *fe, t_run *fu)
{
    const char *a[] = {t_end, "solver.contact_force_unknowns=false", NULL};
    const char *b[] = {t_end, "solver.contact_force_unknowns=true", NULL};
    t_run_file(path, a, fe);
    t_run_file(path, b, fu);
    printf("  %s: force elements %.3f s (dim %.1f), force unknowns %.3f s (dim %.1f)\n", path, fe->met.wall_seconds,
           fe->met.mean_system_dimension, fu->met.wall_seconds, fu->met.mean_system_dimension);
    CHECK(fe->rc == 0 && fu->rc == 0);
    CHECK(fe->res.nsample == fu->res.nsample && fe->res.nsample > 1);
}

/* The same motion as with force elements.  The two forms solve the same
 * equations under the same error control (tolerance rtol); they differ in
 * the modified-Newton iterates (the contact coupling is in the matrix here,
 * body-diagonal there), hence in the steps taken: the difference is of the
 * size of the global error, a few hundred rtol at most on a velocity
 * through an impact (each impact is a stiff transient of ~100 steps, each
 * allowed an rtol-sized error), far less on positions. */
static void test_same_motion(int quick)
{
    t_run fe, fu;
    /* bouncing ball (rtol 1e-6): apex heights of three bounces */
    s_both("examples/bouncing_ball.json", "solver.t_end=3", &fe, &fu);
    double ha[8], hb[8];
    int na = t_maxima(&fe, "z", ha, 8), nb = t_maxima(&fu, "z", hb, 8);
    CHECK(na >= 3 && na == nb);
    for (int i = 0; i < na && i < nb; i++) {
        printf("    apex %d: %.7f / %.7f m\n", i + 1, ha[i], hb[i]);
        /* an apex is v+^2 / 2g: 1e-4 relative is 50 rtol on v+ */
        CHECK_NEAR(hb[i], ha[i], 1e-4 * ha[i]);
    }
    CHECK(s_reldiff(&fe, &fu, "vz") < 1e-3); /* measured 4e-4: through impacts (see above) */
    t_run_free(&fe);
    t_run_free(&fu);

    /* block sliding down the incline: position after 1 s (measured 8e-7) */
    s_both("examples/block_on_incline_slide.json", "solver.t_end=1", &fe, &fu);
    double xa = t_at(&fe, "x", 1.0), xb = t_at(&fu, "x", 1.0);
    printf("    incline: x(1 s) %.8f / %.8f m\n", xa, xb);
    CHECK_NEAR(xb, xa, 1e-5 * fabs(xa)); /* 10 rtol: no impact, smooth sliding */
    CHECK(s_reldiff(&fe, &fu, "N") < 1e-5);
    t_run_free(&fe);
    t_run_free(&fu);

    /* cam follower: the contact force over one and a half turns (measured 1e-7) */
    s_both("examples/cam_follower.json", "solver.t_end=0.1", &fe, &fu);
    printf("    cam: contact force difference %.3g of its largest value\n", s_reldiff(&fe, &fu, "N"));
    CHECK(s_reldiff(&fe, &fu, "N") < 1e-5);
    CHECK(s_reldiff(&fe, &fu, "y") < 1e-6);
    t_run_free(&fe);
    t_run_free(&fu);

    if (quick) return;
    /* chain drive, 4 ms: positions and speeds to 1e-5 (measured 1e-6), the
     * span and tooth forces (stiff steel contacts: a force is k times a
     * position error) to 1 % (measured 6e-4) */
    s_both("examples/roller_chain_drive.json", "solver.t_end=0.004", &fe, &fu);
    const char *kin[] = {"theta2", "omega2", "x_link0", "y_link0", "x_carriage"};
    const char *frc[] = {"F_top", "F_bottom", "F_driven", "N_teeth1"};
    for (int i = 0; i < 5; i++) CHECK(s_reldiff(&fe, &fu, kin[i]) < 1e-5);
    for (int i = 0; i < 4; i++) {
        printf("    chain %-9s difference %.3g\n", frc[i], s_reldiff(&fe, &fu, frc[i]));
        CHECK(s_reldiff(&fe, &fu, frc[i]) < 1e-2);
    }
    t_run_free(&fe);
    t_run_free(&fu);
}

/* Deactivation on and off with force unknowns: the same outputs (a pair
 * outside the active set is an identity row whose zeros change nothing,
 * system_contacts.c: measured bit for bit; 1e-6 of each channel's scale
 * as in contact_examples_test), and system dimensions that differ by the
 * unknowns of the pairs outside the set. */
static void s_on_off(const char *path, const char *t_end, int unknowns_all, double *dim_on, double *dim_off)
{
    const char *on[] = {t_end, "solver.contact_force_unknowns=true", "solver.contact_deactivation=true", NULL};
    const char *off[] = {t_end, "solver.contact_force_unknowns=true", "solver.contact_deactivation=false", NULL};
    t_run a, b;
    t_run_file(path, on, &a);
    t_run_file(path, off, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    CHECK(a.res.nsample == b.res.nsample && a.res.nsample > 1);
    if (a.rc || b.rc || a.res.nsample != b.res.nsample) { t_run_free(&a); t_run_free(&b); return; }
    double worst = 0;
    for (int c = 0; c < a.spec->nchannel; c++) {
        double r = s_reldiff(&a, &b, a.spec->channels[c].name);
        worst = fmax(worst, r);
        CHECK(r <= 1e-6);
    }
    int nggl = 0;
    {
        mbs_errlist err = {0};
        mbs_report rep;
        mbs_model *m = mbs_model_new(a.spec, &rep, &err);
        CHECK(m != NULL);
        if (m) nggl = 2 * (mbs_model_nvar(m) + mbs_model_neq(m));
        mbs_model_free(&m);
    }
    printf("  %s on/off: %.3f / %.3f s, mean dimension %.1f / %.1f (max %d / %d, GGL %d), pairs %.1f / %.1f, "
           "largest difference %.3g\n", path, a.met.wall_seconds, b.met.wall_seconds, a.met.mean_system_dimension,
           b.met.mean_system_dimension, a.met.max_system_dimension, b.met.max_system_dimension, nggl,
           a.met.mean_active_contacts, b.met.mean_active_contacts, worst);
    /* without deactivation the Newton matrix carries every pair's unknowns */
    CHECK(b.met.max_system_dimension == nggl + unknowns_all);
    *dim_on = a.met.mean_system_dimension - nggl;
    *dim_off = b.met.mean_system_dimension - nggl;
    t_run_free(&a);
    t_run_free(&b);
}

static void test_on_off(int quick)
{
    double on, off;
    /* one sphere-plane pair without friction: one unknown, out of the
     * system while the ball flies high */
    s_on_off("examples/bouncing_ball.json", "solver.t_end=1.0", 1, &on, &off);
    CHECK(on < off && off > 0.9);
    /* chain drive: 8000 pairs with friction, 2 unknowns each (normal,
     * tangent); with deactivation ~80 pairs are in the system, i.e. ~160
     * unknowns (the first step, before the set settles, holds more) */
    if (quick) return; /* sanitizer build: the 8000-pair run takes minutes */
    s_on_off("examples/roller_chain_drive.json", "solver.t_end=0.004", 16000, &on, &off);
    CHECK(off > 0.99 * 16000); /* the analyses at t = 0 have no contact unknowns */
    CHECK(on < 0.02 * 16000);
}

/* Parser: the option needs the BDF integrator and a compliant contact. */
static void s_parse_error(const char *path, const char *const *sets, const char *needle)
{
    size_t len;
    char *text = t_slurp(path, &len);
    CHECK(text != NULL);
    if (!text) return;
    t_sets ts;
    t_sets_parse(&ts, sets);
    mbs_errlist err = {0};
    mbs_spec *sp = mech_parse(text, len, ts.ov, ts.n, &err);
    free(text);
    CHECK(sp == NULL);
    int found = 0;
    for (int i = 0; i < err.n; i++)
        if (!strcmp(err.e[i].pointer, "/solver/contact_force_unknowns") && strstr(err.e[i].message, needle)) found = 1;
    if (!found)
        for (int i = 0; i < err.n; i++) printf("    got %s: %s\n", err.e[i].pointer, err.e[i].message);
    CHECK(found);
    mbs_spec_free(&sp);
}

static void test_parser(void)
{
    const char *al[] = {"solver.integrator=trapezoidal_al", "solver.contact_force_unknowns=true", NULL};
    s_parse_error("examples/bouncing_ball.json", al, "needs solver.integrator \"bdf\"");
    const char *rk[] = {"solver.integrator=dopri5", "solver.contact_force_unknowns=true", NULL};
    s_parse_error("examples/bouncing_ball.json", rk, "not 'dopri5'");
    const char *none[] = {"solver.integrator=bdf", "solver.contact_force_unknowns=true", NULL};
    s_parse_error("examples/pendulum.json", none, "no contacts");
    const char *rigid[] = {"solver.contact_force_unknowns=true", NULL};
    s_parse_error("examples/bouncing_ball_rigid.json", rigid, "needs solver.integrator \"bdf\"");
    /* and it is accepted where it applies */
    const char *ok[] = {"solver.contact_force_unknowns=true", NULL};
    t_run r;
    t_run_file("examples/cam_follower.json", (const char *[]){"solver.t_end=0.01", ok[0], NULL}, &r);
    CHECK(r.rc == 0 && r.spec && r.spec->solver.contact_force_unknowns == 1);
    t_run_free(&r);
}

/* --quick (the sanitizer suite): without the chain drive. */
int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    test_sparse();
    test_parser();
    test_same_motion(quick);
    test_on_off(quick);
    return CHECK_SUMMARY("contact_unknowns_test");
}
