/*
 * reaction_test.c - the joint reactions' least-squares solve (output/
 * reaction.c) on its two paths:
 *  - statically determinate (A of full column rank): the sparse augmented
 *    system by KLU; a two-link pendulum hanging at rest, each pin carrying
 *    the weight below it;
 *  - statically indeterminate (A rank-deficient: the augmented matrix is
 *    singular): the dense minimum-norm solution; a bar on two ground pins,
 *    whose horizontal forces only their sum fixes (minimum norm: both 0)
 *    and whose vertical forces the lever rule gives.
 */
#include "check.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

#define G 9.81

static void test_determinate(void)
{
    const char *doc =
        "{\"dimension\": 2, \"gravity\": [0, -9.81],"
        " \"bodies\": [{\"name\": \"a\", \"mass\": 2, \"inertia\": 0.1, \"com\": [0, -0.5], \"angle\": 0},"
        "   {\"name\": \"b\", \"mass\": 3, \"inertia\": 0.2, \"com\": [0, -1.5], \"angle\": 0}],"
        " \"joints\": [{\"name\": \"p1\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"a\"], \"at\": [0, 0]},"
        "   {\"name\": \"p2\", \"type\": \"revolute\", \"bodies\": [\"a\", \"b\"], \"at\": [0, -1]}],"
        " \"solver\": {\"t_end\": 0.2},"
        " \"outputs\": {\"interval\": 0.1, \"channels\": ["
        "   {\"name\": \"F1x\", \"quantity\": \"reaction_force\", \"joint\": \"p1\", \"component\": \"x\"},"
        "   {\"name\": \"F1y\", \"quantity\": \"reaction_force\", \"joint\": \"p1\", \"component\": \"y\"},"
        "   {\"name\": \"F2y\", \"quantity\": \"reaction_force\", \"joint\": \"p2\", \"component\": \"y\"}]}}";
    t_run r;
    t_run_text(doc, NULL, &r);
    CHECK(r.rc == 0);
    /* at rest hanging straight down: rounding only */
    for (int i = 0; i <= 2; i++) {
        CHECK_NEAR(t_at(&r, "F1x", 0.1 * i), 0.0, 1e-9);
        CHECK_NEAR(t_at(&r, "F1y", 0.1 * i), 5 * G, 1e-9);
        CHECK_NEAR(t_at(&r, "F2y", 0.1 * i), 3 * G, 1e-9);
    }
    t_run_free(&r);
}

static void test_indeterminate(void)
{
    const char *doc =
        "{\"dimension\": 2, \"gravity\": [0, -9.81],"
        " \"bodies\": [{\"name\": \"bar\", \"mass\": 2, \"inertia\": 0.1, \"com\": [0.3, 0], \"angle\": 0}],"
        " \"joints\": [{\"name\": \"p1\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"bar\"], \"at\": [0, 0]},"
        "   {\"name\": \"p2\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"bar\"], \"at\": [1, 0]}],"
        " \"solver\": {\"t_end\": 0.2},"
        " \"outputs\": {\"interval\": 0.1, \"channels\": ["
        "   {\"name\": \"F1x\", \"quantity\": \"reaction_force\", \"joint\": \"p1\", \"component\": \"x\"},"
        "   {\"name\": \"F1y\", \"quantity\": \"reaction_force\", \"joint\": \"p1\", \"component\": \"y\"},"
        "   {\"name\": \"F2x\", \"quantity\": \"reaction_force\", \"joint\": \"p2\", \"component\": \"x\"},"
        "   {\"name\": \"F2y\", \"quantity\": \"reaction_force\", \"joint\": \"p2\", \"component\": \"y\"}]}}";
    t_run r;
    t_run_text(doc, NULL, &r);
    CHECK(r.rc == 0);
    for (int i = 0; i <= 2; i++) {
        CHECK_NEAR(t_at(&r, "F1x", 0.1 * i), 0.0, 1e-9);
        CHECK_NEAR(t_at(&r, "F2x", 0.1 * i), 0.0, 1e-9);
        CHECK_NEAR(t_at(&r, "F1y", 0.1 * i), 0.7 * 2 * G, 1e-9);
        CHECK_NEAR(t_at(&r, "F2y", 0.1 * i), 0.3 * 2 * G, 1e-9);
    }
    t_run_free(&r);
}

int main(void)
{
    test_determinate();
    test_indeterminate();
    return CHECK_SUMMARY("reaction_test");
}
