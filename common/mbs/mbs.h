/*
 * mbs.h - public interface of the multibody solver library.
 *
 * The split follows MuJoCo: an mbs_model is built once from an mbs_spec and
 * is read-only afterwards (one model can serve many runs); an mbs_data holds
 * everything that changes during a run.  All work arrays are sized when the
 * data is created; nothing is allocated inside a time step.
 *
 * Errors are values: functions return 0 on success and a negative MBS_E*
 * code on failure, with messages appended to a caller's mbs_errlist.  The
 * library never calls exit() and never prints.
 *
 * Formulation: natural coordinates (points and vectors of a natural-coordinate
 * system per body, constant mass matrix), with the constant-coordinate and
 * equal-coordinate constraints eliminated when the model is built.  See
 * common/mbs/README.md for the formulation and the module map.
 */
#ifndef MBS_H
#define MBS_H

#include <stddef.h>
#include "mbs/linalg/status.h"
#include "mbs/model/spec.h"

/* ---- errors ---------------------------------------------------------------- */

/* The return codes MBS_OK, MBS_E* are in mbs/linalg/status.h (the lowest
 * layer returns them too). */

#define MBS_ERR_MAX 64
#define MBS_WARN_MAX 4   /* accuracy warnings stored per run (mbs_metrics)     */

typedef struct {
    char pointer[128];   /* JSON pointer of the offending value, "" if none   */
    char message[256];
} mbs_error;

typedef struct {
    int n;               /* number of errors stored (<= MBS_ERR_MAX)          */
    int dropped;         /* errors that did not fit                          */
    mbs_error e[MBS_ERR_MAX];
} mbs_errlist;

/* Append an error (printf-style message).  Never fails; counts overflow. */
void mbs_err_add(mbs_errlist *el, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Human name of a return code. */
const char *mbs_strerror(int code);

/* ---- model ------------------------------------------------------------------- */

typedef struct mbs_model mbs_model; /* opaque, read-only once built           */
typedef struct mbs_data mbs_data;   /* opaque, one per run                    */

/* Sizes and findings of the model build and the initial analyses. */
typedef struct {
    int dim;
    int nbody, njoint;
    int coords_before;        /* natural coordinates before elimination        */
    int constraints_before;   /* constraint equations before elimination       */
    int eliminated_constant;  /* NCCC: coordinates fixed to constants          */
    int eliminated_equal;     /* NCEC: coordinates merged with another         */
    int coords_after;         /* integration variables                         */
    int constraints_after;    /* constraint equations kept (incl. drivers)     */
    int redundant;            /* dependent equations removed                   */
    char redundant_joints[512]; /* names of the joints involved, comma list   */
    int dof;                  /* coords_after - rank(Phi_q) (drivers counted)  */
    double assembly_residual; /* |Phi|_inf after assembly                       */
    int assembly_iterations;
    double assembly_max_move; /* largest coordinate change made by assembly    */
    double velocity_correction; /* |v_projected - v_given|_inf                 */
    double min_singular_ratio;  /* smallest/largest singular value of Phi_q     */
    int singular_warning;     /* 1: configuration near singular                */
    int bandwidth;            /* half-bandwidth of the ordered system matrix   */
    /* the same mechanism in relative (joint) coordinates (sysgraph.h): joint
     * coordinates of the spanning tree and floating roots, constraint
     * equations of the chords (circuit equations) and drivers, the chords,
     * the longest fundamental loop (joints), the floating roots */
    int rel_coords, rel_constraints, rel_chords, rel_longest_loop, rel_roots;
    int warnings;
    char warning[4][256];
} mbs_report;

/* Build a model from a spec.  On success returns the model and fills `rep`
 * (may be NULL) with the elimination counts; on failure returns NULL with
 * messages in `err`.  The model BORROWS the spec: the caller keeps ownership,
 * must not change it, and frees it only after mbs_model_free.  */
mbs_model *mbs_model_new(const mbs_spec *spec, mbs_report *rep, mbs_errlist *err);

/* Free a model; sets *m to NULL. */
void mbs_model_free(mbs_model **m);

/* The spec the model was built from (read-only). */
const mbs_spec *mbs_model_spec(const mbs_model *m);

/* Number of integration variables and of constraint equations. */
int mbs_model_nvar(const mbs_model *m);
int mbs_model_neq(const mbs_model *m);

/* ---- data / state ------------------------------------------------------------- */

/* Allocate the state and every work array of a run of `m`.  NULL on ENOMEM. */
mbs_data *mbs_data_new(const mbs_model *m);
void mbs_data_free(mbs_data **d);

/* Initial analyses: assemble positions (Newton on Phi(q,0) = 0 from the
 * approximate input), detect redundant equations, project the initial
 * velocities and compute consistent accelerations.  Fills `rep`. */
int mbs_initialize(const mbs_model *m, mbs_data *d, mbs_report *rep, mbs_errlist *err);

/* ---- results and metrics ------------------------------------------------------ */

/* Body poses are kept at a subset of the samples ("frames"): every
 * `frame_every`-th sample and the last one, so that a frame's time is a
 * sample's time, at most MBS_POSE_FRAMES_MAX frames and at most
 * MBS_POSE_VALUES_MAX values in all (the size stays bounded for any model).
 * A pose is, per body in spec order, 2-D: x y angle of the centre of mass
 * and body frame (angle continuous over time); 3-D: x y z w qx qy qz
 * (unit quaternion of the body frame, sign continuous over time).  Any body
 * point p given globally at t = 0 is then at com(t) + R(t) R0^T (p - com0)
 * with com0, R0 the body's input position and orientation. */
#define MBS_POSE_FRAMES_MAX 256

/* At most this many output samples per run (t_end / outputs.interval): the
 * parser refuses a finer interval, which would hold nsample x channels
 * doubles in memory (the examples: at most 40,000). */
#define MBS_SAMPLES_MAX 1000000
#define MBS_POSE_VALUES_MAX 65536

/* Contact forces are kept at the frames too, one record of
 * MBS_CONTACT_REC values per touching point: frame index, pair (index in
 * the spec's contacts), body, the other body (-1: the ground), the body's
 * material point (world, x y z) and the force on that body there (world,
 * x y z; z = 0 in 2-D; the other body takes -F).  The body is the pair's
 * body B, which receives F (contact.h mbs_cforce), or body A with -F when B
 * is the ground.  Points with a zero force (a rigid pair's
 * point in the active set without impulse) are left out.  At most MBS_CONTACT_RECS_MAX records: the
 * frames whose points did not all fit have none, and contact_frames counts
 * the first frames whose points are all kept. */
#define MBS_CONTACT_REC 10
#define MBS_CONTACT_RECS_MAX 32768

typedef struct {
    int nchannel;           /* columns after time                              */
    int nsample;
    int cap;                /* allocated rows                                  */
    double *rows;           /* nsample x (1 + nchannel), row-major, [0] = t    */
    int nbody;              /* bodies with a pose (0: no poses kept)           */
    int npose;              /* values per body: 3 (2-D) or 7 (3-D)             */
    int nframe, frame_cap;
    int frame_every;        /* samples between two frames                      */
    double *frames;         /* nframe x (1 + nbody npose), row-major, [0] = t  */
    int ncontact_rec, contact_cap; /* contact force records (see above)        */
    int contact_frames;     /* first frames whose contact points are all kept   */
    double *contacts;       /* ncontact_rec x MBS_CONTACT_REC, row-major        */
} mbs_result;

void mbs_result_free(mbs_result *r); /* frees rows and frames, keeps the struct */

typedef struct {
    const char *integrator;
    const char *formulation;    /* "natural" or "relative" (solver.formulation) */
    int relative_coords, relative_constraints; /* relative: joint coordinates,
                                   chord equations                            */
    char chords[256];           /* relative: the spanning tree's chord joints,
                                   comma list ("" without loops)             */
    double wall_seconds, cpu_seconds;
    long steps, rejected_steps;
    long newton_iterations, jacobian_evaluations, factorizations;
    double mean_system_dimension;  /* unknowns of the Newton/linear system     */
    int max_system_dimension;
    int coords_before, coords_after, constraints_before, constraints_after;
    double max_constraint_violation;   /* position level, |Phi|_inf           */
    double max_velocity_violation;     /* |Phi_q v + Phi_t|_inf               */
    double energy_drift;   /* max |E(t) - E(0)| / max(|E(0)|, max KE), both
                              maxima over the run; NaN when the model is
                              not conservative                              */
    int conservative;
    double mean_active_contacts; int max_active_contacts;
    long contact_activations, contact_deactivations;
    double contact_detection_seconds, linear_algebra_seconds;
    long peak_memory_bytes;  /* peak resident memory of the process (getrusage) */
    int order_max_used;      /* BDF: highest order used                     */
    long singular_steps;     /* steps taken through a (near-)singular
                                configuration: the AL Newton iteration met its
                                slow singular mode, the BDF's Newton iterates
                                at their rounding floor near a rank loss,
                                DOPRI5's ill-conditioned KKT systems       */
    long slow_multiplier_steps; /* BDF: steps accepted with positions and
                                velocities converged and the constraint
                                multipliers not, at the iteration limit
                                (algebraic: they decide no step)           */
    long reselections;       /* BDF: times the independent constraint set
                                was chosen again after it degenerated      */
    /* contacts and nonsmooth joints */
    const char *contact_method; /* "none", "compliant", "moreau_jean_lemke",
                                   "moreau_jean_pgs", "event_driven_lemke"
                                   (the method that solved the rigid contacts;
                                   "+compliant" appended when both kinds exist) */
    double mean_lcp_dimension;  /* unknowns of the complementarity problems    */
    int max_lcp_dimension;
    long lcp_solves, lcp_failures; /* failures: Lemke ray / limit, PGS not
                                      converged within lcp_max_iterations      */
    long events, impacts;       /* event_driven: located events, impulsive ones;
                                   moreau_jean: impacts = contacts closing     */
    long zeno_closures;         /* event_driven: approaches slower than the
                                   Zeno threshold stopped without restitution */
    long nonsmooth_steps;       /* moreau_jean: steps in which the contact
                                   status of some island changed (impact,
                                   activation, release, stick-slip), left out
                                   of error_estimate (mj_error.c)              */
    double nonsmooth_error_estimate; /* moreau_jean: largest bound of the
                                   position error a switch inside a step makes
                                   (h^2/2 |jump of the mean acceleration|, h/2
                                   |velocity jump| for an impact), units of the
                                   tolerance; not in tolerance_met             */
    double max_penetration;     /* largest -gap of a rigid contact at a step (m) */
    double max_complementarity_error; /* largest |min(gap rate or gap, lam)|
                                   violation found by the per-step check        */
    /* accuracy (DESIGN §2, accuracy contract) */
    double tolerance;           /* relative tolerance the run was asked for     */
    double abs_tolerance;       /* absolute tolerance of positions asked for
                                   (derived from the relative one and the length
                                   scale unless set); both are targets for the
                                   answer: variable-step methods hold each step
                                   to a fraction of them (accuracy.h)          */
    double error_estimate;      /* largest estimated local error of an accepted
                                   step in units of the local tolerance (weighted RMS
                                   norm): <= 1 means every step met it; NaN
                                   where the method has no estimate            */
    int tolerance_met;          /* 1: no warning below; 0: see warning[]       */
    int nwarning;               /* warnings raised (may exceed the stored 4)    */
    char warning[MBS_WARN_MAX][200]; /* the first MBS_WARN_MAX, plain text    */
} mbs_metrics;

/* Progress callback: fraction done in [0,1]; return non-zero to cancel. */
typedef int (*mbs_progress_fn)(double fraction, void *user);

/* Run the analysis selected in the spec (dynamics by default) from t = 0 to
 * t_end, sampling every output channel at spec->out_interval (interpolated
 * between steps).  Calls mbs_initialize itself.  `res` receives the samples
 * (caller frees with mbs_result_free), `met` the efficiency metrics.  Either
 * may be NULL.  On failure the samples up to the failure stay in `res`. */
int mbs_simulate(const mbs_model *m, mbs_data *d, mbs_result *res, mbs_metrics *met,
                 mbs_progress_fn progress, void *user, mbs_errlist *err);

/* Write the metrics as a JSON object (no trailing newline) into buf; returns
 * the length that was needed (snprintf semantics). */
int mbs_metrics_json(const mbs_metrics *met, char *buf, size_t size);

/* Write the report as a JSON object into buf (snprintf semantics). */
int mbs_report_json(const mbs_report *rep, char *buf, size_t size);

#endif
