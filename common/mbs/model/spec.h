/*
 * spec.h - a mechanism as plain data: what the JSON parser produces and the
 * model builder consumes.
 *
 * Every number here is already evaluated (parameters and "=" expressions are
 * resolved by the parser), geometry is global at the initial configuration,
 * and body references are indices into spec->bodies with MBS_GROUND (-1) for
 * the fixed body.  Only time functions keep an expression, because they are
 * evaluated during the run (variable `t`).
 *
 * Ownership: a spec is created by mbs_spec_new() and freed by mbs_spec_free(),
 * which frees every array hanging from it (all allocated with malloc/calloc).
 */
#ifndef MBS_SPEC_H
#define MBS_SPEC_H

#include <stddef.h>

#include "mbs/actuator/control.h"
#include "mbs/actuator/dcmotor.h"

#define MBS_GROUND (-1)
#define MBS_NAME_MAX 64

struct mbs_expr; /* compiled expression, see expr.h */

/* ---- functions of time (drivers, forces) -------------------------------- */

typedef enum {
    MBS_FN_CONSTANT = 0,   /* f = c[0]                                        */
    MBS_FN_CONSTANT_SPEED, /* f = c[0] * t            (c[0] = speed)           */
    MBS_FN_POLYNOMIAL,     /* f = sum_k c[k] t^k      (n coefficients)        */
    MBS_FN_HARMONIC,       /* f = c[0] sin(c[1] t + c[2]) + c[3]
                              (amplitude, angular frequency rad/s, phase, offset) */
    MBS_FN_TABLE,          /* (t_i, f_i) pairs in c[2i], c[2i+1], n = pairs;
                              linear, or natural cubic spline if `spline`     */
    MBS_FN_EXPRESSION      /* f = expr(t)                                      */
} mbs_fn_kind;

typedef struct {
    mbs_fn_kind kind;
    int n;                 /* number of coefficients / table rows            */
    double *c;             /* coefficients or table (owned)                   */
    int spline;            /* TABLE: 1 = natural cubic spline, 0 = linear     */
    double *spline_m;      /* TABLE+spline: second derivatives (owned, n)     */
    struct mbs_expr *expr; /* EXPRESSION: compiled, variable t (owned)        */
} mbs_fn;

/* ---- bodies ------------------------------------------------------------- */

typedef struct {
    char name[MBS_NAME_MAX];
    double mass;
    double inertia[6];          /* 2-D: inertia[0] = Izz about the com.
                                   3-D: Ixx Iyy Izz Ixy Ixz Iyz, body frame,
                                   tensor entries (Ixy = -int x y dm)          */
    double com[3];              /* global, initial configuration               */
    double angle;               /* 2-D rotation of the body frame              */
    double quat[4];             /* 3-D orientation w x y z (normalised)        */
    double velocity[3];         /* of the com, global                          */
    double angular_velocity[3]; /* 2-D: [2] is the scalar omega (z);
                                   3-D: global vector                          */
} mbs_body_spec;

/* ---- joints -------------------------------------------------------------- */

typedef enum {
    MBS_CLEARANCE_NONE = 0,  /* ideal joint                                       */
    MBS_CLEARANCE_FRICTION,  /* seed 003: the joint stays bilateral; the normal
                                forces at the slider's two ends decide which
                                guide wall carries them; set-valued Coulomb
                                friction; event_driven integrator           */
    MBS_CLEARANCE_IMPACT     /* the slider is free inside the guide: its four
                                corners are rigid contacts against the two
                                walls (restitution, friction); moreau_jean  */
} mbs_clearance_model;

typedef enum {
    MBS_JOINT_REVOLUTE = 0,
    MBS_JOINT_PRISMATIC,
    MBS_JOINT_SPHERICAL,   /* 3-D only */
    MBS_JOINT_UNIVERSAL,   /* 3-D only */
    MBS_JOINT_CYLINDRICAL, /* 3-D only */
    MBS_JOINT_FIXED,
    MBS_JOINT_DISTANCE,    /* massless rod between points[0] on body[0] and
                              points[1] on body[1]                             */
    MBS_JOINT_NTYPES
} mbs_joint_type;

typedef struct {
    char name[MBS_NAME_MAX];
    mbs_joint_type type;
    int body[2];          /* indices, MBS_GROUND = -1                          */
    double at[3];         /* joint point (global, t = 0); prismatic: a point
                             on the sliding axis (defaults to body[1]'s com)  */
    double axis[3];       /* revolute/prismatic/cylindrical axis (unit);
                             2-D prismatic: direction of sliding in the plane;
                             2-D revolute: unused                             */
    double axes[2][3];    /* universal: axis fixed in body[0], in body[1]     */
    double points[2][3];  /* distance: end points                            */
    double length;        /* distance: rod length (default |p1 - p0|)        */
    int has_length;
    double damping;       /* viscous joint damping (N s/m or N m s/rad), 0 = none */
    /* 2-D prismatic joint with clearance (seed 003; Flores, Leine, Glocker
     * 2010).  body[0] is the guide, body[1] the slider; the slider is
     * centred on `at` at t = 0 with its length along `axis`. */
    mbs_clearance_model clearance_model;
    double clearance;     /* radial clearance c: guide half-width minus slider
                             half-width (m) > 0                               */
    double friction;      /* Coulomb coefficient mu >= 0 at the guide        */
    double friction_static; /* friction model: static coefficient mu_s >= mu
                             (the stick limit; the parser's default: mu)      */
    double restitution;   /* impact model: Newton coefficient in [0, 1]       */
    double slider_length; /* slider length along the axis (m) > 0             */
    double slider_width;  /* slider width across the axis (m): impact > 0;
                             friction >= 0, places the wall contact points
                             of the friction (0: on the axis)               */
} mbs_joint_spec;

/* ---- drivers ------------------------------------------------------------- */

typedef struct {
    int joint;            /* index into spec->joints (revolute or prismatic)  */
    mbs_fn motion;        /* joint coordinate relative to its value at the
                             initial configuration, as a function of time     */
} mbs_driver_spec;

/* ---- force elements ------------------------------------------------------ */

typedef enum {
    MBS_FORCE_SPRING_DAMPER = 0, /* translational, between two points         */
    MBS_FORCE_ROTATIONAL_SPRING_DAMPER, /* on a revolute joint                 */
    MBS_FORCE_POINT_FORCE,       /* force at a body point                       */
    MBS_FORCE_TORQUE,            /* torque on a body                            */
    MBS_FORCE_DC_MOTOR,          /* permanent-magnet DC motor on a revolute or
                                    prismatic joint (issue 13): supply voltage
                                    value[0](t), algebraic current (L = 0)   */
    MBS_FORCE_JOINT_ACTUATOR,    /* an ideal actuator on a revolute (torque) or
                                    prismatic (force) joint: value[0](t) or a
                                    controller's output (ctrl)              */
    MBS_FORCE_NTYPES
} mbs_force_type;

typedef struct {
    char name[MBS_NAME_MAX];      /* "" when unnamed; output channels refer to
                                     elements by name or index               */
    mbs_force_type type;
    int body[2];                  /* spring: both; force/torque: body[0]       */
    double points[2][3];          /* spring end points (global, t = 0)          */
    double at[3];                 /* point force: application point            */
    int joint;                    /* rotational spring: joint index            */
    double stiffness, damping;
    double free_length;           /* spring; has_free_length = 0 -> initial   */
    int has_free_length;
    double free_angle;            /* rotational spring: relative angle at rest */
    double preload;               /* spring: constant force added (tension +)  */
    mbs_fn value[3];              /* force: components; torque: 2-D value[0],
                                     3-D value[0..2]                          */
    int body_frame;               /* 1: components in body axes, 0: global     */
    mbs_dcmotor motor;            /* dc_motor: its parameters (dcmotor.h)       */
    int ctrl;                     /* dc_motor, joint_actuator: 1 + the index in
                                     spec->controllers of the controller whose
                                     output is the supply voltage (the joint
                                     torque or force); 0: value[0](t)        */
} mbs_force_spec;

/* ---- contact shapes and contacts (compliant contact laws) ---------------- */

typedef enum {
    MBS_SHAPE_SPEC_POINT = 0, /* 2-D: p                                          */
    MBS_SHAPE_SPEC_CIRCLE,    /* 2-D: p = centre, radius                          */
    MBS_SHAPE_SPEC_SEGMENT,   /* 2-D: p -> q                                      */
    MBS_SHAPE_SPEC_LINE,      /* 2-D: p on the line, q = outward unit normal      */
    MBS_SHAPE_SPEC_SPHERE,    /* 3-D: p = centre, radius                          */
    MBS_SHAPE_SPEC_PLANE,     /* 3-D: p on the plane, q = outward unit normal     */
    MBS_SHAPE_SPEC_BOX,       /* 3-D: p = centre, half extents, orientation quat  */
    MBS_SHAPE_SPEC_CAPSULE,   /* 3-D: axis p -> q, radius                         */
    MBS_SHAPE_SPEC_NKIND
} mbs_shape_spec_kind;

typedef struct {
    char name[MBS_NAME_MAX];
    int body;                 /* index, MBS_GROUND = -1                         */
    mbs_shape_spec_kind kind;
    double p[3], q[3];        /* global at t = 0 (see the kinds above)          */
    double radius;
    double half[3];           /* box half extents along its own axes            */
    double quat[4];           /* box orientation (w x y z), global at t = 0     */
} mbs_shape_spec;

typedef enum {
    MBS_LAW_HERTZ = 0,            /* F = k d^e                                   */
    MBS_LAW_HUNT_CROSSLEY,        /* F = k d^e (1 + 3 (1 - c_r) / 2 * d' / d'-)  */
    MBS_LAW_LANKARANI_NIKRAVESH,  /* F = k d^e (1 + 3 (1 - c_r^2) / 4 * d' / d'-) */
    MBS_LAW_RIGID                 /* unilateral constraint g >= 0, lam >= 0,
                                     g lam = 0; Newton restitution c_r at
                                     impacts; Coulomb friction (exact in the
                                     plane, pyramid in space).  Needs the
                                     moreau_jean or event_driven integrator */
} mbs_contact_law;

typedef struct {
    int shape[2];             /* indices into spec->shapes (A, B)               */
    mbs_contact_law law;
    double stiffness;         /* k (N/m^e)                                      */
    double exponent;          /* e (1 linear, 1.5 Hertz sphere)                  */
    double restitution;       /* c_r in [0, 1] (Hunt-Crossley, L-N)            */
    double friction;          /* Coulomb coefficient mu >= 0                    */
    double friction_static;   /* rigid law, event_driven: the stick limit
                                 mu_s >= mu (parser default: mu)               */
    double slip_velocity;     /* regularisation of Coulomb friction (m/s) > 0   */
    double margin;            /* activation distance (m) >= 0                  */
} mbs_contact_spec;

/* ---- solver options ------------------------------------------------------ */

typedef enum {
    MBS_INT_TRAPEZOIDAL_AL = 0, /* index-3 augmented Lagrangian, trapezoidal  */
    MBS_INT_BDF,                /* variable-order variable-step BDF (GSTIFF)  */
    MBS_INT_DOPRI5,             /* Dormand-Prince 5(4), index-1 + Baumgarte   */
    MBS_INT_MOREAU_JEAN,        /* time stepping for rigid contacts: impulse-
                                   velocity LCP per step (Lemke or PGS)      */
    MBS_INT_EVENT_DRIVEN,       /* planar: smooth phases (DOPRI5 + Baumgarte)
                                   between events located by root finding;
                                   impact and mode LCPs (Lemke) at events    */
    MBS_INT_NTYPES
} mbs_integrator;

typedef enum {
    MBS_LCP_AUTO = 0, MBS_LCP_LEMKE, MBS_LCP_PGS
} mbs_lcp_choice;

typedef enum {
    MBS_FORM_NATURAL = 0,       /* natural coordinates (the default)          */
    MBS_FORM_RELATIVE           /* joint coordinates of a spanning tree, chords
                                   closing the loops (run/relative.h): dopri5
                                   only, no rigid contacts, drivers of chords,
                                   ... for now                               */
} mbs_formulation_kind;

typedef enum {
    MBS_ANALYSIS_DYNAMICS = 0,
    MBS_ANALYSIS_STATICS,       /* static equilibrium only (one sample)       */
    MBS_ANALYSIS_KINEMATICS     /* fully driven: position/velocity/accel     */
} mbs_analysis;

typedef struct {
    mbs_analysis analysis;
    mbs_integrator integrator;
    double t_end;            /* required, > 0                                 */
    double step;             /* fixed step (AL) or initial step (BDF, RK)     */
    double max_step;         /* BDF/RK upper bound on the step                */
    double min_step;         /* below this the run fails (divergence)         */
    double tolerance;        /* relative local error (BDF, RK); Newton (AL)   */
    double abs_tolerance;    /* absolute local error (BDF, RK)                */
    int max_order;           /* BDF: 1..5                                     */
    int max_newton;          /* Newton iterations per step                    */
    double penalty;          /* AL penalty factor alpha (scaled by mass)      */
    double baumgarte_alpha;  /* RK: damping coefficient (1/s)                 */
    double baumgarte_beta;   /* RK: stiffness coefficient (1/s)               */
    double assembly_tolerance;
    int max_assembly_iterations;
    int contact_deactivation;/* 1: only contacts touching or predicted to touch
                                within the step are in the system (seed 002) */
    int energy_projection;   /* BDF and natural DOPRI5 on a conservative
                                mechanism: each step projected onto the
                                energy surface (default 1; force.h
                                mbs_energy_project) */
    int contact_force_unknowns; /* BDF with compliant contacts: each pair's
                                force components are unknowns of the Newton
                                matrix (sparse LU by KLU; ADAMS' form, seed
                                002's baseline); 0: force elements (default) */
    mbs_lcp_choice lcp_solver; /* rigid contacts: auto (Lemke up to
                                lcp_lemke_max unknowns, PGS above), lemke, pgs */
    int lcp_lemke_max;       /* auto: largest LCP given to Lemke              */
    double lcp_tolerance;    /* PGS: residual relative to max |q|             */
    int lcp_max_iterations;  /* PGS sweeps                                     */
    double lcp_regularization; /* PGS: constraint force mixing eps >= 0: each
                                impulse row solves (W + eps diag W); 0 = none
                                (docs/contacts.md)                            */
    double time_limit;       /* wall seconds; 0 = none                        */
    mbs_formulation_kind formulation; /* natural (default) or relative      */
} mbs_solver_spec;

/* ---- outputs ------------------------------------------------------------- */

typedef enum {
    MBS_Q_POSITION = 0, MBS_Q_VELOCITY, MBS_Q_ACCELERATION,
    MBS_Q_ANGLE,            /* 2-D body angle (continuous, unwrapped)           */
    MBS_Q_ANGULAR_VELOCITY, /* 2-D scalar; 3-D vector component              */
    MBS_Q_ORIENTATION,      /* 3-D quaternion component w|x|y|z              */
    MBS_Q_JOINT_COORDINATE, /* revolute angle / prismatic displacement        */
    MBS_Q_REACTION_FORCE,   /* joint reaction on body[1] at the joint point   */
    MBS_Q_REACTION_TORQUE,
    MBS_Q_ELEMENT_FORCE,    /* spring: axial force (tension +); rotational
                               spring: torque; force/torque: value            */
    MBS_Q_KINETIC_ENERGY, MBS_Q_POTENTIAL_ENERGY, MBS_Q_TOTAL_ENERGY,
    MBS_Q_CONSTRAINT_VIOLATION, /* |Phi|_inf at the sample                      */
    MBS_Q_NORMAL_FORCE,     /* clearance joint (friction model, event_driven):
                               normal force of the guide on the slider along
                               the guide's normal at end 1 (component x, the
                               end at -L/2), end 2 (y), |N_1| + |N_2| (magnitude) */
    MBS_Q_FRICTION_FORCE,   /* the same joint: friction force on the slider
                               along the guide's axis                         */
    MBS_Q_MOTOR,            /* a dc_motor element: current, voltage, motor
                               speed, torque on the joint, power flows
                               (components MBS_C_CURRENT ...)              */
    MBS_Q_CONTACT_FORCE,    /* resultant force of the declared contact pairs
                               between shapes matching contact[0] and shapes
                               matching contact[1], on the latter (x, y, z,
                               magnitude), or the sum of the pairs' normal
                               components (normal)                            */
    MBS_Q_JOINT_VELOCITY,   /* rate of a revolute / prismatic joint's coordinate */
    MBS_Q_CONTROLLER,       /* a controller (spec->controllers[element]):
                               error, output, setpoint, measurement         */
    MBS_Q_NTYPES
} mbs_quantity;

typedef enum {
    MBS_C_X = 0, MBS_C_Y, MBS_C_Z, MBS_C_MAGNITUDE, MBS_C_W,
    MBS_C_NORMAL, /* contact_force: sum of the normal components           */
    /* motor: current (A), applied voltage (V), motor speed (rad/s), torque
     * on the joint (N m, or N through a lead), electrical input power,
     * copper, friction and gear losses, mechanical output power (W) */
    MBS_C_CURRENT, MBS_C_VOLTAGE, MBS_C_SPEED, MBS_C_TORQUE, MBS_C_POWER_IN, MBS_C_COPPER_LOSS,
    MBS_C_FRICTION_LOSS, MBS_C_GEAR_LOSS, MBS_C_POWER_OUT,
    MBS_C_MAGNETIC_ENERGY, /* motor: 1/2 L i^2 (J), 0 when L = 0              */
    /* motor: the energies since t = 0 (J), the integrals of power_in,
     * copper_loss, friction_loss, gear_loss and power_out: quadratures the
     * output sampler carries over each accepted step (output.h) */
    MBS_C_ENERGY_IN, MBS_C_COPPER_ENERGY, MBS_C_FRICTION_ENERGY, MBS_C_GEAR_ENERGY, MBS_C_ENERGY_OUT,
    /* controller: setpoint - measurement, the output (after the limits and
     * the feed-forward; held between samples when discrete), the setpoint,
     * the measured signal, its first state (a pid's integral of the error,
     * an lti block's x_1) */
    MBS_C_ERROR, MBS_C_OUTPUT, MBS_C_SETPOINT, MBS_C_MEASUREMENT, MBS_C_STATE,
    MBS_C_NONE /* scalar quantities */
} mbs_component;

typedef struct {
    char name[MBS_NAME_MAX];
    mbs_quantity quantity;
    int body;              /* body quantities                                   */
    double point[3];       /* global at t = 0; default the com                  */
    int joint;             /* joint quantities                                  */
    int element;           /* index into spec->forces (controller: into
                              spec->controllers)                            */
    char contact[2][MBS_NAME_MAX]; /* contact_force: shape name patterns     */
    mbs_component component;
} mbs_channel_spec;

/* ---- controllers (issue 13; docs/actuators.md) ------------------------------ */

typedef enum { MBS_CTRL_PID = 0, MBS_CTRL_LTI } mbs_ctrl_type;

/* A controller: u = setpoint(t) - measure (the error) into a PID or a
 * linear block (control.h), output y = block + feedforward(t) (a PID's
 * limits apply to that sum).  Continuous (ts = 0: its states are element
 * states of the run, model.h nz) or discrete (ts > 0: sampled at k ts,
 * output held in between; an lti's matrices are then those of the
 * discrete-time block).  Its output is the supply voltage of the dc_motors
 * that name it (mbs_force_spec.ctrl). */
typedef struct {
    char name[MBS_NAME_MAX];
    mbs_ctrl_type type;
    mbs_pid pid;               /* PID: gains, limits, tracking time; pid.ts = ts */
    mbs_lti lti;               /* LTI: A, B, C, D                                  */
    double ts;                 /* sample period (s); 0: continuous                */
    mbs_channel_spec measure;  /* the measured signal: a channel of a state
                                  quantity (no name; mechanism_out.c)         */
    mbs_fn setpoint, feedforward;
    int sp_ctrl;               /* 1 + the controller whose output is the
                                  setpoint (a cascade: setpoint
                                  {"controller": name}); 0: setpoint(t)     */
    int depth;                 /* the longest chain of controllers it reads
                                  (setpoint or measure), 0: none; sampled
                                  controllers sample in increasing depth
                                  (mechanism_ctrl.c)                          */
    int loop;                  /* 1: a continuous controller passing the joint
                                  reaction it measures at once to a force it
                                  drives (an algebraic loop, solved at each
                                  state: run/measure.h)                       */
} mbs_ctrl_spec;

/* ---- the mechanism --------------------------------------------------------- */

typedef struct mbs_spec {
    char name[128];
    int dim;                     /* 2 or 3                                       */
    double gravity[3];
    int nbody;   mbs_body_spec   *bodies;
    int njoint;  mbs_joint_spec  *joints;
    int ndriver; mbs_driver_spec *drivers;
    int nforce;  mbs_force_spec  *forces;
    int nshape;   mbs_shape_spec   *shapes;
    int ncontact; mbs_contact_spec *contacts; /* pairs, groups already expanded */
    mbs_solver_spec solver;
    double out_interval;         /* > 0                                          */
    int nchannel; mbs_channel_spec *channels;
    int nctrl; mbs_ctrl_spec *controllers;
} mbs_spec;

/* Allocate an empty spec with the solver defaults filled in (see
 * mbs_solver_defaults).  Caller frees with mbs_spec_free. */
mbs_spec *mbs_spec_new(void);

/* Free a spec and everything it owns; sets *s to NULL.  Accepts NULL. */
void mbs_spec_free(mbs_spec **s);

/* Fill `o` with the documented defaults (trapezoidal_al, step 1e-3,
 * tolerance 1e-6, ...).  t_end is left at 0 (the caller must set it). */
void mbs_solver_defaults(mbs_solver_spec *o);

/* Release what an mbs_fn owns (not the struct itself). */
void mbs_fn_clear(mbs_fn *f);

/* Evaluate a function of time and its first two derivatives (any of the
 * out-pointers may be NULL).  Expressions are differentiated numerically. */
double mbs_fn_eval(const mbs_fn *f, double t, double *df, double *ddf);

/* The kinks of f in (t0, t1] (times where its slope jumps; an expression's
 * in (t0, t1), mbs_expr_kinks): a linear
 * table's rows, a spline table's first and last rows (the held values
 * begin there), an expression's min/max/abs switches (mbs_expr_kinks, within
 * *budget operations, NULL: none); at most max written to out, unsorted.
 * Returns the number written. */
int mbs_fn_kinks(const mbs_fn *f, double t0, double t1, double *out, int max, long *budget);

/* The most kinks mbs_spec_kinks collects (beyond them the integrators' error
 * control alone handles the inputs' kinks). */
#define MBS_KINKS_MAX 4096
/* The work mbs_spec_kinks may spend scanning expressions, in operations
 * evaluated (about 0.1 s): a model's build stays bounded whatever its
 * expressions (each may hold 1e5 operations). */
#define MBS_KINKS_WORK 50000000L

/* The kinks in (t0, t1) of every input function of time of s (drivers,
 * force and torque values, motor voltages, controllers' setpoints and
 * feed-forwards): sorted, without repeats, t1 left out, in *out (malloc'd,
 * NULL when there are none).  The integrators end their steps there, so
 * that no step and no output interpolation spans a kink.  Returns the
 * count, -1 when out of memory. */
int mbs_spec_kinks(const mbs_spec *s, double t0, double t1, double **out);

/* Prepare a table for evaluation (spline second derivatives).  Returns 0, or
 * -1 when the times are not strictly increasing. */
int mbs_fn_prepare(mbs_fn *f);

/* Names used in the JSON format and in reports. */
const char *mbs_joint_type_name(mbs_joint_type t);
const char *mbs_integrator_name(mbs_integrator i);

/* How declared contact k joins shapes named by the glob patterns pa, pb
 * (fnmatch): +1 its shape A matches pa and B matches pb, -1 the other way
 * round, 0 neither (the contact_force channel's selection). */
int mbs_contact_pair_side(const mbs_spec *s, int k, const char *pa, const char *pb);

#endif
