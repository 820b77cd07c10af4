/*
 * elements_test.c - every joint type, driver kind and force element against
 * an analytic solution (each mechanism is written so that its motion is
 * known in closed form).  Tolerances: the integrators run at tight settings,
 * so what remains is the O(h^2) error of the trapezoidal rule or the local
 * tolerance of BDF/DOPRI5, stated at each check.
 */
#include "check.h"
#include "testutil.h"

#include <math.h>

static const double G = 9.81;

/* ---- spatial joints ------------------------------------------------------------------------- */

/* Spherical pendulum in steady conical motion: omega^2 = g / (L cos th). */
static void test_spherical_conical(void)
{
    double L = 1.0, th = 0.6, w = sqrt(G / (L * cos(th))), r = L * sin(th);
    char doc[2048];
    snprintf(doc, sizeof doc,
             "{\"dimension\": 3, \"gravity\": [0, 0, -9.81],"
             " \"bodies\": [{\"name\": \"bob\", \"mass\": 1, \"inertia\": [1e-4, 1e-4, 1e-4], \"com\": [%.17g, 0, %.17g],"
             "   \"velocity\": [0, %.17g, 0], \"angular_velocity\": [0, 0, %.17g]}],"
             " \"joints\": [{\"name\": \"S\", \"type\": \"spherical\", \"bodies\": [\"ground\", \"bob\"], \"at\": [0, 0, 0]}],"
             " \"solver\": {\"t_end\": 2, \"integrator\": \"dopri5\", \"tolerance\": 1e-10, \"abs_tolerance\": 1e-10},"
             " \"outputs\": {\"interval\": 0.05, \"channels\": ["
             "   {\"name\": \"z\", \"quantity\": \"position\", \"body\": \"bob\", \"component\": \"z\"},"
             "   {\"name\": \"x\", \"quantity\": \"position\", \"body\": \"bob\", \"component\": \"x\"},"
             "   {\"name\": \"F\", \"quantity\": \"reaction_force\", \"joint\": \"S\", \"component\": \"magnitude\"}]}}",
             r, -L * cos(th), w * r, w);
    t_run R;
    t_run_text(doc, NULL, &R);
    CHECK(R.rc == 0);
    /* steady motion: height constant, x = r cos(w t); rod tension m g / cos th */
    for (double t = 0.5; t <= 2.0; t += 0.5) {
        CHECK_NEAR(t_at(&R, "z", t), -L * cos(th), 1e-6);
        CHECK_NEAR(t_at(&R, "x", t), r * cos(w * t), 1e-5);
    }
    /* from interpolated accelerations (quintic Hermite between DOPRI5 steps):
     * 5e-4 N on 11.9 N */
    CHECK_NEAR(t_at(&R, "F", 1.0), G / cos(th), 5e-4);
    t_run_free(&R);
}

/* Cylindrical joint on a vertical axis: free fall along it while spinning. */
static void test_cylindrical(void)
{
    const char *doc =
        "{\"dimension\": 3, \"gravity\": [0, 0, -9.81],"
        " \"bodies\": [{\"name\": \"c\", \"mass\": 2, \"inertia\": [0.1, 0.1, 0.05], \"com\": [0, 0, 1],"
        "   \"angular_velocity\": [0, 0, 3]}],"
        " \"joints\": [{\"name\": \"C\", \"type\": \"cylindrical\", \"bodies\": [\"ground\", \"c\"], \"at\": [0, 0, 1],"
        "   \"axis\": [0, 0, 1]}],"
        " \"solver\": {\"integrator\": \"trapezoidal_al\", \"t_end\": 1, \"step\": 0.0005},"
        " \"outputs\": {\"interval\": 0.1, \"channels\": ["
        "   {\"name\": \"z\", \"quantity\": \"position\", \"body\": \"c\", \"component\": \"z\"},"
        "   {\"name\": \"x\", \"quantity\": \"position\", \"body\": \"c\", \"component\": \"x\"},"
        "   {\"name\": \"wz\", \"quantity\": \"angular_velocity\", \"body\": \"c\", \"component\": \"z\"},"
        "   {\"name\": \"qw\", \"quantity\": \"orientation\", \"body\": \"c\", \"component\": \"w\"},"
        "   {\"name\": \"qz\", \"quantity\": \"orientation\", \"body\": \"c\", \"component\": \"z\"}]}}";
    t_run R;
    t_run_text(doc, NULL, &R);
    CHECK(R.rc == 0);
    /* quadratic translation and uniform rotation: trapezoidal exact to round-off */
    CHECK_NEAR(t_at(&R, "z", 1.0), 1 - 0.5 * G, 1e-8);
    CHECK_NEAR(t_at(&R, "x", 1.0), 0, 1e-9);
    CHECK_NEAR(t_at(&R, "wz", 0.7), 3.0, 1e-6);
    /* rotation 3 t about z: q = (cos(3t/2), 0, 0, sin(3t/2)); trapezoidal phase
     * error w^3 h^2 t / 12 ~ 6e-7 rad */
    CHECK_NEAR(t_at(&R, "qw", 0.6), cos(0.9), 2e-6);
    CHECK_NEAR(t_at(&R, "qz", 0.6), sin(0.9), 2e-6);
    t_run_free(&R);
}

/* Prismatic joint in space on a 30-degree incline: a = g sin(30). */
static void test_prismatic_3d(void)
{
    const char *doc =
        "{\"dimension\": 3, \"gravity\": [0, 0, -9.81],"
        " \"bodies\": [{\"name\": \"b\", \"mass\": 1, \"inertia\": [0.1, 0.1, 0.1], \"com\": [0, 0, 0]}],"
        " \"joints\": [{\"name\": \"P\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"b\"],"
        "   \"axis\": [\"=cos(pi/6)\", 0, \"=-sin(pi/6)\"]}],"
        " \"solver\": {\"integrator\": \"trapezoidal_al\", \"t_end\": 1, \"step\": 0.001},"
        " \"outputs\": {\"interval\": 0.5, \"channels\": ["
        "   {\"name\": \"s\", \"quantity\": \"joint_coordinate\", \"joint\": \"P\"},"
        "   {\"name\": \"N\", \"quantity\": \"reaction_force\", \"joint\": \"P\", \"component\": \"magnitude\"}]}}";
    t_run R;
    t_run_text(doc, NULL, &R);
    CHECK(R.rc == 0);
    CHECK_NEAR(t_at(&R, "s", 1.0), 0.5 * G * 0.5, 1e-8);
    /* normal force m g cos(30) */
    CHECK_NEAR(t_at(&R, "N", 0.5), G * cos(M_PI / 6), 1e-6);
    t_run_free(&R);
}

/* Revolute in space about a horizontal axis: the planar pendulum's period. */
static void test_revolute_3d(void)
{
    const char *doc =
        "{\"dimension\": 3, \"gravity\": [0, 0, -9.81],"
        " \"bodies\": [{\"name\": \"bob\", \"mass\": 1, \"inertia\": [0, 0, 0], \"com\": [\"=sin(0.01)\", 0, \"=-cos(0.01)\"]}],"
        " \"joints\": [{\"name\": \"R\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"bob\"], \"at\": [0, 0, 0],"
        "   \"axis\": [0, 1, 0]}],"
        " \"solver\": {\"t_end\": 1, \"integrator\": \"dopri5\", \"tolerance\": 1e-11, \"abs_tolerance\": 1e-12},"
        " \"outputs\": {\"interval\": 0.001, \"channels\": ["
        "   {\"name\": \"x\", \"quantity\": \"position\", \"body\": \"bob\", \"component\": \"x\"},"
        "   {\"name\": \"y\", \"quantity\": \"position\", \"body\": \"bob\", \"component\": \"y\"}]}}";
    t_run R;
    t_run_text(doc, NULL, &R);
    CHECK(R.rc == 0);
    /* quarter period (pi/2) sqrt(L/g)(1 + th0^2/16): x crosses zero there */
    double q = M_PI / 2 * sqrt(1 / G) * (1 + 1e-4 / 16);
    CHECK(fabs(t_at(&R, "x", q - 0.002)) > 0 && t_at(&R, "x", q - 0.002) > 0 && t_at(&R, "x", q + 0.002) < 0);
    CHECK_NEAR(t_at(&R, "x", q), 0, 2e-6);
    CHECK_NEAR(t_at(&R, "y", 0.8), 0, 1e-10); /* stays in its plane */
    t_run_free(&R);
}

/* Fixed joint: two welded halves move as the single rigid body they form. */
static void test_fixed(void)
{
    const char *two =
        "{\"dimension\": 2, \"gravity\": [0, -9.81],"
        " \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": \"=1/12*0.25\", \"com\": [0.25, 0]},"
        "   {\"name\": \"b\", \"mass\": 1, \"inertia\": \"=1/12*0.25\", \"com\": [0.75, 0]}],"
        " \"joints\": [{\"name\": \"pin\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"a\"], \"at\": [0, 0]},"
        "   {\"name\": \"weld\", \"type\": \"fixed\", \"bodies\": [\"a\", \"b\"], \"at\": [0.5, 0]}],"
        " \"solver\": {\"t_end\": 1, \"integrator\": \"dopri5\", \"tolerance\": 1e-11, \"abs_tolerance\": 1e-12},"
        " \"outputs\": {\"interval\": 0.1, \"channels\": [{\"name\": \"th\", \"quantity\": \"joint_coordinate\", \"joint\": \"pin\"}]}}";
    const char *one =
        "{\"dimension\": 2, \"gravity\": [0, -9.81],"
        " \"bodies\": [{\"name\": \"a\", \"mass\": 2, \"inertia\": \"=2/12\", \"com\": [0.5, 0]}],"
        " \"joints\": [{\"name\": \"pin\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"a\"], \"at\": [0, 0]}],"
        " \"solver\": {\"t_end\": 1, \"integrator\": \"dopri5\", \"tolerance\": 1e-11, \"abs_tolerance\": 1e-12},"
        " \"outputs\": {\"interval\": 0.1, \"channels\": [{\"name\": \"th\", \"quantity\": \"joint_coordinate\", \"joint\": \"pin\"}]}}";
    t_run A, B;
    t_run_text(two, NULL, &A);
    t_run_text(one, NULL, &B);
    CHECK(A.rc == 0 && B.rc == 0);
    /* same equation of motion, both integrated to 1e-11: 1e-8 */
    CHECK(t_maxdiff(&A, &B, "th") < 1e-8);
    t_run_free(&A);
    t_run_free(&B);
}

/* Distance joint (massless rod) against the revolute pendulum. */
static void test_distance(void)
{
    const char *rod =
        "{\"dimension\": 2, \"gravity\": [0, -9.81],"
        " \"bodies\": [{\"name\": \"b\", \"mass\": 1, \"inertia\": 0.01, \"com\": [0.8, -0.6]}],"
        " \"joints\": [{\"name\": \"rod\", \"type\": \"distance\", \"bodies\": [\"ground\", \"b\"], \"points\": [[0, 0], [0.8, -0.6]]}],"
        " \"solver\": {\"t_end\": 1, \"integrator\": \"dopri5\", \"tolerance\": 1e-10, \"abs_tolerance\": 1e-11},"
        " \"outputs\": {\"interval\": 0.1, \"channels\": [{\"name\": \"x\", \"quantity\": \"position\", \"body\": \"b\", \"component\": \"x\"},"
        "   {\"name\": \"T\", \"quantity\": \"reaction_force\", \"joint\": \"rod\", \"component\": \"magnitude\"}]}}";
    /* a point mass on a rod hinged at the origin with a free body rotation:
     * the body's own rotation is decoupled (no torque), so the com moves as
     * the point-mass pendulum of length 1 */
    const char *pin =
        "{\"dimension\": 2, \"gravity\": [0, -9.81],"
        " \"bodies\": [{\"name\": \"b\", \"mass\": 1, \"inertia\": 0, \"com\": [0.8, -0.6]}],"
        " \"joints\": [{\"name\": \"p\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"b\"], \"at\": [0, 0]}],"
        " \"solver\": {\"t_end\": 1, \"integrator\": \"dopri5\", \"tolerance\": 1e-10, \"abs_tolerance\": 1e-11},"
        " \"outputs\": {\"interval\": 0.1, \"channels\": [{\"name\": \"x\", \"quantity\": \"position\", \"body\": \"b\", \"component\": \"x\"}]}}";
    t_run A, B;
    t_run_text(rod, NULL, &A);
    t_run_text(pin, NULL, &B);
    CHECK(A.rc == 0 && B.rc == 0);
    CHECK(t_maxdiff(&A, &B, "x") < 1e-7);
    /* tension at rest: m g cos(th) with cos th = 0.6 */
    CHECK_NEAR(t_at(&A, "T", 0), G * 0.6, 1e-6);
    t_run_free(&A);
    t_run_free(&B);
}

/* ---- drivers -------------------------------------------------------------------------------- */

/* A slider driven by each motion kind: kinematic analysis gives the
 * function and its derivatives exactly. */
static void test_driver_kinds(void)
{
    const char *kinds[] = {
        "{\"kind\": \"polynomial\", \"coefficients\": [0, 0.5, -0.2, 0.1]}",
        "{\"kind\": \"harmonic\", \"amplitude\": 0.1, \"frequency\": 2, \"phase\": 0, \"offset\": 0}",
        "{\"kind\": \"table\", \"points\": [[0, 0], [0.5, 0.2], [1, 0.1]], \"interpolation\": \"linear\"}",
        "{\"kind\": \"expression\", \"value\": \"=0.3*t^2\"}",
        "{\"kind\": \"constant_speed\", \"speed\": 0.7}",
    };
    for (int k = 0; k < 5; k++) {
        char doc[2048];
        snprintf(doc, sizeof doc,
                 "{\"dimension\": 2,"
                 " \"bodies\": [{\"name\": \"s\", \"mass\": 1, \"inertia\": 0.1, \"com\": [0, 0]}],"
                 " \"joints\": [{\"name\": \"P\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"s\"], \"axis\": [1, 0]}],"
                 " \"drivers\": [{\"joint\": \"P\", \"motion\": %s}],"
                 " \"solver\": {\"t_end\": 1, \"analysis\": \"kinematics\"},"
                 " \"outputs\": {\"interval\": 0.125, \"channels\": ["
                 "   {\"name\": \"x\", \"quantity\": \"position\", \"body\": \"s\", \"component\": \"x\"},"
                 "   {\"name\": \"v\", \"quantity\": \"velocity\", \"body\": \"s\", \"component\": \"x\"},"
                 "   {\"name\": \"a\", \"quantity\": \"acceleration\", \"body\": \"s\", \"component\": \"x\"}]}}",
                 kinds[k]);
        t_run R;
        t_run_text(doc, NULL, &R);
        CHECK(R.rc == 0);
        for (double t = 0.125; t <= 1.0 + 1e-12; t += 0.125) {
            double x, v, a;
            switch (k) {
            case 0: x = 0.5 * t - 0.2 * t * t + 0.1 * t * t * t; v = 0.5 - 0.4 * t + 0.3 * t * t; a = -0.4 + 0.6 * t; break;
            case 1: x = 0.1 * sin(4 * M_PI * t); v = 0.4 * M_PI * cos(4 * M_PI * t); a = -1.6 * M_PI * M_PI * sin(4 * M_PI * t); break;
            case 2: x = t <= 0.5 ? 0.4 * t : 0.2 - 0.2 * (t - 0.5); v = t < 0.5 ? 0.4 : -0.2; a = 0; break;
            case 3: x = 0.3 * t * t; v = 0.6 * t; a = 0.6; break;
            default: x = 0.7 * t; v = 0.7; a = 0; break;
            }
            CHECK_NEAR(t_at(&R, "x", t), x, 1e-9);
            /* expressions are differentiated numerically (h ~ 1e-5): 1e-6 */
            if (k == 2 && (fabs(t - 0.5) < 1e-9 || t > 1 - 1e-9)) continue; /* the table's knots: no derivative */
            CHECK_NEAR(t_at(&R, "v", t), v, k == 3 ? 1e-6 : 1e-8);
            CHECK_NEAR(t_at(&R, "a", t), a, k == 3 ? 1e-4 : 1e-6);
        }
        t_run_free(&R);
    }
}

/* ---- force elements ---------------------------------------------------------------------------- */

/* Torsional oscillator: rotational spring-damper on a revolute joint. */
static void test_rotational_spring(void)
{
    const char *doc =
        "{\"dimension\": 2,"
        " \"bodies\": [{\"name\": \"d\", \"mass\": 1, \"inertia\": 0.5, \"com\": [0, 0], \"angular_velocity\": 1}],"
        " \"joints\": [{\"name\": \"R\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"d\"], \"at\": [0, 0]}],"
        " \"forces\": [{\"type\": \"rotational_spring_damper\", \"name\": \"k\", \"joint\": \"R\", \"stiffness\": 8, \"damping\": 0.4}],"
        " \"solver\": {\"t_end\": 3, \"integrator\": \"bdf\", \"tolerance\": 1e-10, \"abs_tolerance\": 1e-11},"
        " \"outputs\": {\"interval\": 0.01, \"channels\": ["
        "   {\"name\": \"th\", \"quantity\": \"joint_coordinate\", \"joint\": \"R\"},"
        "   {\"name\": \"tau\", \"quantity\": \"element_force\", \"element\": \"k\"}]}}";
    t_run R;
    t_run_text(doc, NULL, &R);
    CHECK(R.rc == 0);
    /* I th'' + c th' + k th = 0, th(0) = 0, th'(0) = 1: zeta w = c/2I, w^2 = k/I */
    double I = 0.5, c = 0.4, kk = 8, sig = c / (2 * I), wd = sqrt(kk / I - sig * sig);
    for (double t = 0.5; t <= 3.0; t += 0.5) {
        double th = exp(-sig * t) * sin(wd * t) / wd;
        CHECK_NEAR(t_at(&R, "th", t), th, 1e-6);
    }
    double t1 = 1.0, th1 = exp(-sig * t1) * sin(wd * t1) / wd;
    double dth1 = exp(-sig * t1) * (cos(wd * t1) - sig / wd * sin(wd * t1));
    CHECK_NEAR(t_at(&R, "tau", t1), -kk * th1 - c * dth1, 1e-5);
    t_run_free(&R);
}

/* Viscous joint damping decays a spinning disc exponentially. */
static void test_joint_damping(void)
{
    const char *doc =
        "{\"dimension\": 2,"
        " \"bodies\": [{\"name\": \"d\", \"mass\": 1, \"inertia\": 0.2, \"com\": [0, 0], \"angular_velocity\": 5}],"
        " \"joints\": [{\"name\": \"R\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"d\"], \"at\": [0, 0]}],"
        " \"forces\": [{\"type\": \"joint_damping\", \"joint\": \"R\", \"coefficient\": 0.1}],"
        " \"solver\": {\"t_end\": 2, \"integrator\": \"dopri5\", \"tolerance\": 1e-10, \"abs_tolerance\": 1e-11},"
        " \"outputs\": {\"interval\": 0.5, \"channels\": [{\"name\": \"w\", \"quantity\": \"angular_velocity\", \"body\": \"d\"}]}}";
    t_run R;
    t_run_text(doc, NULL, &R);
    CHECK(R.rc == 0);
    for (double t = 0.5; t <= 2.0; t += 0.5) CHECK_NEAR(t_at(&R, "w", t), 5 * exp(-0.1 / 0.2 * t), 1e-7);
    t_run_free(&R);
}

/* Constant torque, time-dependent force, body-frame force. */
static void test_point_loads(void)
{
    /* free body: torque 2 N m, force (3 t, 0) at the com, no gravity */
    const char *doc =
        "{\"dimension\": 2,"
        " \"bodies\": [{\"name\": \"b\", \"mass\": 2, \"inertia\": 0.5, \"com\": [0, 0]}],"
        " \"forces\": [{\"type\": \"torque\", \"body\": \"b\", \"value\": 2},"
        "   {\"type\": \"force\", \"body\": \"b\", \"value\": [\"=3*t\", 0]}],"
        " \"solver\": {\"t_end\": 1, \"integrator\": \"dopri5\", \"tolerance\": 1e-11, \"abs_tolerance\": 1e-12},"
        " \"outputs\": {\"interval\": 0.25, \"channels\": ["
        "   {\"name\": \"th\", \"quantity\": \"angle\", \"body\": \"b\"},"
        "   {\"name\": \"x\", \"quantity\": \"position\", \"body\": \"b\", \"component\": \"x\"}]}}";
    t_run R;
    t_run_text(doc, NULL, &R);
    CHECK(R.rc == 0);
    for (double t = 0.25; t <= 1.0; t += 0.25) {
        CHECK_NEAR(t_at(&R, "th", t), 0.5 * (2 / 0.5) * t * t, 1e-7);
        CHECK_NEAR(t_at(&R, "x", t), 3 * t * t * t / (6 * 2), 1e-8);
    }
    t_run_free(&R);

    /* a follower force (body frame) of 1 N along the body x axis on a body
     * spinning at 2 rad/s about its com: the com moves on a circle of radius
     * F / (m w^2) = 0.25 m around its start offset */
    const char *fol =
        "{\"dimension\": 2,"
        " \"bodies\": [{\"name\": \"b\", \"mass\": 1, \"inertia\": 0.1, \"com\": [0, 0], \"angular_velocity\": 2}],"
        " \"forces\": [{\"type\": \"force\", \"body\": \"b\", \"value\": [1, 0], \"frame\": \"body\"}],"
        " \"solver\": {\"t_end\": 3, \"integrator\": \"dopri5\", \"tolerance\": 1e-11, \"abs_tolerance\": 1e-12},"
        " \"outputs\": {\"interval\": 0.5, \"channels\": ["
        "   {\"name\": \"x\", \"quantity\": \"position\", \"body\": \"b\", \"component\": \"x\"},"
        "   {\"name\": \"y\", \"quantity\": \"position\", \"body\": \"b\", \"component\": \"y\"}]}}";
    t_run_text(fol, NULL, &R);
    CHECK(R.rc == 0);
    /* x'' = cos(2t), y'' = sin(2t): x = (1 - cos 2t)/4, y = t/2 - sin(2t)/4 */
    for (double t = 0.5; t <= 3.0; t += 0.5) {
        CHECK_NEAR(t_at(&R, "x", t), (1 - cos(2 * t)) / 4, 2e-6);
        CHECK_NEAR(t_at(&R, "y", t), t / 2 - sin(2 * t) / 4, 2e-6);
    }
    t_run_free(&R);
}

int main(void)
{
    test_spherical_conical();
    test_cylindrical();
    test_prismatic_3d();
    test_revolute_3d();
    test_fixed();
    test_distance();
    test_driver_kinds();
    test_rotational_spring();
    test_joint_damping();
    test_point_loads();
    return CHECK_SUMMARY("elements_test");
}
