/*
 * simulate.c - a whole run: initialisation, the selected analysis, sampling,
 * metrics; and the JSON writers of the report and the metrics.
 */
#include "mbs/model/accuracy.h"
#include "mbs/analysis/analysis.h"
#include "mbs/contact/contact.h"
#include "mbs/integrate/integrators.h"
#include "mbs/analysis/system.h"
#include "mbs/run/run.h"
#include "mbs/run/relative.h"
#include "mbs/run/measure.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/dynamics/force.h"
#include "mbs/dynamics/controller.h"
#include "mbs/model/clock.h"
#include "mbs/linalg/vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double s_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Run-time context used by mbs_step_done (wall clock of the run). */
typedef struct {
    double wall0;
    double last_progress;
    double time_limit;
    double ke_max; /* the largest kinetic energy so far           */
    double de_max; /* the largest |E(t) - E(0)| so far             */
    mbs_progress_fn progress;   /* the caller's progress report and cancel */
    void *user;
} s_run;

static _Thread_local s_run *s_cur;

static double s_energy(const mbs_model *m, const mbs_data *d)
{
    return mbs_kinetic(m, d->v) + mbs_potential(m, d->x, d->t);
}

/* Progress, cancellation and the wall-clock limit (d->poll): after every
 * accepted step, and where an integrator retakes a rejected one (the
 * caller's progress callback at most every 0.05 s). */
static int s_poll(mbs_data *d, mbs_errlist *err)
{
    if (!s_cur) return 0;
    double now = mbs_now();
    if (s_cur->time_limit > 0 && now - s_cur->wall0 > s_cur->time_limit) {
        mbs_err_add(err, "", "time limit of %.3g s reached at t = %.6g", s_cur->time_limit, d->t);
        return MBS_ETIMEOUT;
    }
    if (s_cur->progress && now - s_cur->last_progress > 0.05) {
        s_cur->last_progress = now;
        if (s_cur->progress(d->t / d->m->spec->solver.t_end, s_cur->user)) {
            mbs_err_add(err, "", "cancelled at t = %.6g", d->t);
            return MBS_ECANCEL;
        }
    }
    return 0;
}

int mbs_run_dependent_violated(const mbs_model *m, const mbs_data *d, double r_on, double r_off, mbs_errlist *err)
{
    double bound = fmax(100 * m->spec->solver.tolerance, 1e-6) * (1 + m->length_scale);
    if (!(fmax(r_on, r_off) > bound)) return 0;
    mbs_err_add(err, "", "t = %.6g: equations contradict each other (joints %s; %d depend on the others): "
                "residual %.3g, %.3g in the kept ones; drive each freedom once", d->t, d->rep.redundant_joints,
                d->rep.redundant, fmax(r_on, r_off), r_on);
    return 1;
}

int mbs_run_step_done(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err)
{
    return mbs_run_step_done_ahead(m, d, smp, d->t - d->tp, err);
}

int mbs_run_step_done_ahead(const mbs_model *m, mbs_data *d, mbs_sampler *smp, double h_ahead, mbs_errlist *err)
{
    /* constraint violation at the accepted state (position, velocity) */
    if (!d->cons_at_state) mbs_cons_eval(m, d->x, d->t, d->phi, d->jac);
    d->cons_at_state = 0;
    double pv = mbs_phi_norm(d);
    if (pv > d->met.max_constraint_violation) d->met.max_constraint_violation = pv;
    /* the equations switched off as dependent (d->eq_on 0) must still hold:
     * the integrators solve the others only */
    if (d->rep.redundant > 0) {
        double r_off = 0;
        for (int i = 0; i < m->neq; i++)
            if (!d->eq_on[i]) r_off = mbs_fmax(r_off, fabs(d->phi[i]));
        if (mbs_run_dependent_violated(m, d, pv, r_off, err)) return MBS_EINVAL;
    }
    mbs_cons_phit(m, d->x, d->t, d->phit);
    mbs_cons_jv(m, d->jac, d->v, d->r1);
    /* (mbs_fmax: fmax's value without the library call, once per equation
     * and step) */
    double vv = 0;
    for (int i = 0; i < m->neq; i++)
        if (d->eq_on[i]) vv = mbs_fmax(vv, fabs(d->r1[i] + d->phit[i]));
    if (vv > d->met.max_velocity_violation) d->met.max_velocity_violation = vv;
    if (!isfinite(pv) || !isfinite(vv)) {
        mbs_err_add(err, "", "t = %.6g: the solution diverged (non-finite state)", d->t);
        return MBS_EDIVERGE;
    }
    /* the drift against the largest energy of the run so far, not against
     * the energy at the step where it was largest: a mechanism starting
     * from rest with E(0) = 0 (a pendulum released at the pivot's height)
     * has a tiny kinetic energy in its first steps, and the ratio there,
     * of order 1 whatever the accuracy, used to be the run's drift */
    if (m->conservative) {
        double ke = mbs_kinetic(m, d->v);
        /* with the BDF's energy projections: the drift the integration
         * alone made (the energy they removed counted back) */
        double dE = fabs(ke + mbs_potential(m, d->x, d->t) - d->E0 + d->E_proj);
        if (s_cur) {
            s_cur->ke_max = fmax(s_cur->ke_max, ke);
            s_cur->de_max = fmax(s_cur->de_max, dE);
            double scale = fmax(fabs(d->E0), s_cur->ke_max);
            if (scale > 0) d->met.energy_drift = s_cur->de_max / scale;
        } else {
            double scale = fmax(fabs(d->E0), ke);
            if (scale > 0 && dE / scale > d->met.energy_drift) d->met.energy_drift = dE / scale;
        }
    }
    /* continuous joint angles for rotational springs (beyond +-pi) */
    for (int e = 0; e < m->spec->nforce; e++) {
        if (m->spec->forces[e].type != MBS_FORCE_ROTATIONAL_SPRING_DAMPER) continue;
        int j = m->spec->forces[e].joint;
        double a = mbs_joint_coord(m, j, d->x, NULL, NULL);
        d->jangle_ref[j] += remainder(a - d->jangle_ref[j], 2 * M_PI);
    }
    if (m->nctrl > 0) mbs_ctrl_step_done(m, d);
    mbs_contact_step_ahead(m, d, d->t - d->tp, h_ahead);
    int rc = mbs_sample_interval(smp, err);
    return rc ? rc : s_poll(d, err);
}

/* The accuracy figures at the end of a run: every integrator estimates its
 * local error (Moreau-Jean on its smooth stretches, mj_error.c, which says
 * itself when it could form none) and meets its tolerance when every
 * accepted step's estimate was <= 1 (2 is allowed for the last-step and
 * interpolation rounding); the kinematic and static analyses report NaN. */
static void s_accuracy(const mbs_model *m, mbs_data *d, int rc)
{
    if (m->spec->solver.analysis != MBS_ANALYSIS_DYNAMICS) d->met.error_estimate = NAN;
    if (rc == 0) mbs_accuracy_finish(d, 2.0);
    else d->met.tolerance_met = 0;
}

/* The integrators' view of mbs_run_step_done (mbs_stepper.done). */
static int s_step_done(void *smp, const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    return mbs_run_step_done(m, d, smp, err);
}

/* The first sample, then the analysis or integrator of the solver spec. */
static int s_integrate(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err)
{
    const mbs_solver_spec *o = &m->spec->solver;
    if (o->formulation == MBS_FORM_RELATIVE) return mbs_run_relative(m, d, smp, err);
    mbs_sample_now(smp);
    if (o->analysis == MBS_ANALYSIS_KINEMATICS) return mbs_kinematics(m, d, smp, err);
    mbs_stepper run = {s_step_done, smp, smp->interval};
    switch (o->integrator) {
    case MBS_INT_BDF: return mbs_integrate_bdf(m, d, &run, err);
    case MBS_INT_DOPRI5: return mbs_integrate_dopri5(m, d, &run, err);
    case MBS_INT_MOREAU_JEAN: return mbs_integrate_moreau_jean(m, d, &run, err);
    case MBS_INT_EVENT_DRIVEN: return mbs_integrate_event_driven(m, d, &run, err);
    default: return mbs_integrate_al(m, d, &run, err);
    }
}

/* Element states (a motor's current with inductance > 0, a continuous
 * controller's states) and discrete controllers (sampling instants where
 * the integrator stops) are handled by bdf and dopri5 only: any other
 * integrator or analysis would run without them, so the run is refused.
 * 0 or MBS_EINVAL. */
static int s_check_states(const mbs_model *m, mbs_errlist *err)
{
    const mbs_solver_spec *o = &m->spec->solver;
    if (m->nz == 0 && m->nctrl == 0) return 0;
    /* the sparse Newton matrix with contact force unknowns is sized
     * without the controllers' coupling blocks (system_contacts.c) */
    if (m->nctrl > 0 && o->analysis == MBS_ANALYSIS_DYNAMICS && o->integrator == MBS_INT_BDF &&
        o->contact_force_unknowns) {
        mbs_err_add(err, "", "controller '%s': controllers are not supported with solver.contact_force_unknowns "
                    "(give it false)", m->spec->controllers[0].name);
        return MBS_EINVAL;
    }
    if (o->analysis == MBS_ANALYSIS_DYNAMICS && (o->integrator == MBS_INT_BDF || o->integrator == MBS_INT_DOPRI5))
        return 0;
    const char *what = o->analysis == MBS_ANALYSIS_STATICS      ? "the statics analysis"
                       : o->analysis == MBS_ANALYSIS_KINEMATICS ? "the kinematics analysis"
                                                                : mbs_integrator_name(o->integrator);
    if (m->nctrl > 0) {
        mbs_err_add(err, "", "controller '%s': controllers (their states, their sampling instants) are solved by the "
                    "integrators bdf and dopri5 (dynamics) only; %s cannot run them (choose bdf or dopri5)",
                    m->spec->controllers[0].name, what);
        return MBS_EINVAL;
    }
    mbs_err_add(err, "", "dc_motor '%s' has an inductance > 0: its current is a state of the equations, which "
                "only the integrators bdf and dopri5 (dynamics) integrate; %s cannot run it (give inductance "
                "0, or choose bdf or dopri5)", m->spec->forces[m->z_force[0]].name, what);
    return MBS_EINVAL;
}

/* The initial velocities as given (m->v0) against the projected ones
 * (d->v, mbs_initialize: consistent with the constraints and drivers at
 * t = 0): a warning when a variable moved by more than the user's
 * tolerance on it (the run's local weights over their factor), naming the
 * body of the largest move.  The run then answers the consistent initial
 * state, not the one typed.  Dynamics only: the kinematic analysis takes
 * its velocities from the drivers, the statics none. */
static void s_warn_velocity(const mbs_model *m, mbs_data *d)
{
    if (m->spec->solver.analysis != MBS_ANALYSIS_DYNAMICS || d->tol.rtol <= 0) return;
    double f = d->tol.rtol / d->met.tolerance, worst = 1, dv = 0;
    int at = -1;
    for (int i = 0; i < m->nvar; i++) {
        double r = fabs(d->v[i] - m->v0[i]) / (mbs_wv(d, i, fabs(m->v0[i])) / f);
        if (r > worst) { worst = r; at = i; dv = fabs(d->v[i] - m->v0[i]); }
    }
    if (at < 0) return;
    const char *who = NULL;
    for (int b = 0; b < m->nbody && !who; b++)
        for (int sl = 0; sl < m->nb && !who; sl++)
            if (m->body[b].var[sl] == at || m->body[b].avar == at) who = m->spec->bodies[b].name;
    mbs_warn(d, "the initial velocities did not satisfy the constraints and drivers: projected onto them, a "
             "velocity%s%s%s changed by %.3g (%.2g x the tolerance)", who ? " of body '" : "", who ? who : "",
             who ? "'" : "", dv, worst);
}

int mbs_simulate(const mbs_model *m, mbs_data *d, mbs_result *res, mbs_metrics *met, mbs_progress_fn progress,
                 void *user, mbs_errlist *err)
{
    const mbs_solver_spec *o = &m->spec->solver;
    s_run run = {mbs_now(), 0, o->time_limit, 0, 0, progress, user};
    d->poll = s_poll;
    double cpu0 = s_cpu();
    s_run *saved = s_cur;
    s_cur = &run;
    memset(&d->met, 0, sizeof d->met);
    d->met.formulation = "natural";
    mbs_contact_reset(m, d);
    mbs_ed_reset(d);
    d->sysdim_sum = 0;
    d->sysdim_count = 0;
    mbs_sampler smp;
    int rc = mbs_sampler_init(&smp, m, d, res);
    if (rc == MBS_EINVAL)
        mbs_err_add(err, "/outputs/interval", "more than %d output samples over t_end", MBS_SAMPLES_MAX);
    else if (rc) mbs_err_add(err, "", "out of memory for the output samples");
    /* element states from their initial values (the consistent
     * accelerations of mbs_initialize depend on them) */
    for (int k = 0; k < m->nz; k++) d->z[k] = m->z_force[k] >= 0 ? m->spec->forces[m->z_force[k]].motor.i0 : 0;
    if (m->nctrl > 0) {
        memset(d->ctrl_y, 0, sizeof(double) * (size_t)m->nctrl);
        memset(d->ctrl_ref, 0, sizeof(double) * (size_t)m->nctrl);
    }
    if (!rc) rc = s_check_states(m, err);
    /* joint reactions measured by continuous controllers: their workspace */
    if (!rc) {
        rc = mbs_meas_start(m, d, err);
        if (rc == MBS_ENOMEM) mbs_err_add(err, "", "out of memory for the measured reactions");
    }
    if (!rc) rc = mbs_initialize(m, d, NULL, err);
    /* controllers: references and the discrete ones' first sample at the
     * assembled state, then the accelerations with their outputs */
    if (!rc && m->nctrl > 0 && (mbs_ctrl_start(m, d), mbs_accelerations(m, d, 0))) {
        mbs_err_add(err, "", "initial accelerations: singular system");
        rc = MBS_ESINGULAR;
    }
    /* a controller's algebraic loop through a reaction: solvable at t = 0 */
    if (!rc && m->nctrl > 0) rc = mbs_meas_check_start(m, d, err);
    /* a reaction a sampled controller measured at t = 0 was the one before
     * its first output: the samples recover theirs under it */
    if (!rc && m->nctrl > 0) mbs_reaction_given(d, NULL);
    if (!rc) {
        mbs_force_zrate(m, d, d->x, d->v, d->z, 0, d->zd);
        memcpy(d->zp, d->z, sizeof(double) * (size_t)m->nz);
        memcpy(d->zdp, d->zd, sizeof(double) * (size_t)m->nz);
        mbs_tol_init(m, d);
        s_warn_velocity(m, d);
        d->E0 = s_energy(m, d);
        d->E_proj = 0;
        run.ke_max = mbs_kinetic(m, d->v);
        run.de_max = 0;
        memcpy(d->xp, d->x, sizeof(double) * (size_t)m->nvar);
        memcpy(d->vp, d->v, sizeof(double) * (size_t)m->nvar);
        memcpy(d->ap, d->a, sizeof(double) * (size_t)m->nvar);
        d->tp = 0;
        mbs_cons_eval(m, d->x, 0, d->phi, d->jac);
        d->met.max_constraint_violation = mbs_phi_norm(d);
        mbs_contact_step(m, d, o->step > 0 ? o->step : 1e-3);
        if (o->analysis == MBS_ANALYSIS_STATICS) {
            /* the relative formulation's run samples its equilibrium itself */
            if (o->formulation == MBS_FORM_RELATIVE) {
                rc = mbs_run_relative(m, d, &smp, err);
            } else {
                rc = mbs_statics(m, d, 0, err);
                if (!rc) mbs_sample_now(&smp);
            }
        } else {
            /* the event-driven integrator sets its modes (and impacts at
             * t = 0) first, so that the first sample has their accelerations
             * and forces */
            if (o->analysis != MBS_ANALYSIS_KINEMATICS && o->integrator == MBS_INT_EVENT_DRIVEN)
                rc = mbs_ed_start(m, d, err);
            if (!rc) rc = s_integrate(m, d, &smp, err);
        }
    }
    d->met.integrator = o->analysis == MBS_ANALYSIS_STATICS ? "statics"
                        : o->analysis == MBS_ANALYSIS_KINEMATICS ? "kinematics" : mbs_integrator_name(o->integrator);
    d->met.wall_seconds = mbs_now() - run.wall0;
    d->met.cpu_seconds = s_cpu() - cpu0;
    d->met.mean_system_dimension = d->sysdim_count ? d->sysdim_sum / (double)d->sysdim_count : 0;
    d->met.mean_active_contacts = d->c_active_count ? d->c_active_sum / (double)d->c_active_count : 0;
    d->met.coords_before = m->report0.coords_before;
    d->met.coords_after = m->report0.coords_after;
    d->met.constraints_before = m->report0.constraints_before;
    d->met.constraints_after = m->report0.constraints_after;
    d->met.conservative = m->conservative;
    if (!m->conservative) d->met.energy_drift = NAN;
    if (!d->met.contact_method) d->met.contact_method = m->spec->ncontact > 0 ? "compliant" : "none";
    if (d->met.lcp_solves > 0) d->met.mean_lcp_dimension /= (double)d->met.lcp_solves;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) d->met.peak_memory_bytes = ru.ru_maxrss * 1024L;
    s_accuracy(m, d, rc);
    if (met) *met = d->met;
    mbs_sampler_free(&smp);
    s_cur = saved;
    d->poll = NULL;
    return rc;
}

/* ---- JSON writers ----------------------------------------------------------------------- */

/* JSON number or null for non-finite values. */
static int s_num(char *buf, size_t size, const char *key, double v, int last)
{
    if (isfinite(v)) return snprintf(buf, size, "\"%s\": %.10g%s", key, v, last ? "" : ", ");
    return snprintf(buf, size, "\"%s\": null%s", key, last ? "" : ", ");
}

#define APPEND(expr) do { int w_ = (expr); if (w_ > 0) len += (size_t)w_; } while (0)
#define REST (len < size ? size - len : 0)
#define AT (len < size ? buf + len : NULL)

int mbs_metrics_json(const mbs_metrics *x, char *buf, size_t size)
{
    size_t len = 0;
    if (!buf) size = 0;
    APPEND(snprintf(AT, REST, "{\"integrator\": \"%s\", ", x->integrator ? x->integrator : ""));
    APPEND(snprintf(AT, REST, "\"formulation\": \"%s\", ", x->formulation ? x->formulation : "natural"));
    if (x->formulation && !strcmp(x->formulation, "relative"))
        /* joint names are checked by the parser: no quotes */
        APPEND(snprintf(AT, REST, "\"relative_coordinates\": %d, \"relative_constraints\": %d, \"chords\": \"%s\", ",
                        x->relative_coords, x->relative_constraints, x->chords));
    APPEND(s_num(AT, REST, "wall_seconds", x->wall_seconds, 0));
    APPEND(s_num(AT, REST, "cpu_seconds", x->cpu_seconds, 0));
    APPEND(snprintf(AT, REST, "\"steps\": %ld, \"rejected_steps\": %ld, \"newton_iterations\": %ld, "
                    "\"jacobian_evaluations\": %ld, \"factorizations\": %ld, ",
                    x->steps, x->rejected_steps, x->newton_iterations, x->jacobian_evaluations, x->factorizations));
    APPEND(s_num(AT, REST, "mean_system_dimension", x->mean_system_dimension, 0));
    APPEND(snprintf(AT, REST, "\"max_system_dimension\": %d, \"coords_before\": %d, \"coords_after\": %d, "
                    "\"constraints_before\": %d, \"constraints_after\": %d, ",
                    x->max_system_dimension, x->coords_before, x->coords_after, x->constraints_before,
                    x->constraints_after));
    APPEND(s_num(AT, REST, "max_constraint_violation", x->max_constraint_violation, 0));
    APPEND(s_num(AT, REST, "max_velocity_violation", x->max_velocity_violation, 0));
    APPEND(s_num(AT, REST, "energy_drift", x->energy_drift, 0));
    APPEND(s_num(AT, REST, "mean_active_contacts", x->mean_active_contacts, 0));
    APPEND(snprintf(AT, REST, "\"max_active_contacts\": %d, \"contact_activations\": %ld, "
                    "\"contact_deactivations\": %ld, ",
                    x->max_active_contacts, x->contact_activations, x->contact_deactivations));
    APPEND(s_num(AT, REST, "contact_detection_seconds", x->contact_detection_seconds, 0));
    APPEND(s_num(AT, REST, "linear_algebra_seconds", x->linear_algebra_seconds, 0));
    APPEND(snprintf(AT, REST, "\"max_order_used\": %d, \"singular_steps\": %ld, \"slow_multiplier_steps\": %ld, "
                    "\"kept_set_reselections\": %ld, \"peak_memory_bytes\": %ld, ", x->order_max_used,
                    x->singular_steps, x->slow_multiplier_steps, x->reselections, x->peak_memory_bytes));
    APPEND(snprintf(AT, REST, "\"contact_method\": \"%s\", ", x->contact_method ? x->contact_method : "none"));
    APPEND(s_num(AT, REST, "mean_lcp_dimension", x->mean_lcp_dimension, 0));
    APPEND(snprintf(AT, REST, "\"max_lcp_dimension\": %d, \"lcp_solves\": %ld, \"lcp_failures\": %ld, "
                    "\"events\": %ld, \"impacts\": %ld, \"zeno_closures\": %ld, ",
                    x->max_lcp_dimension, x->lcp_solves, x->lcp_failures, x->events, x->impacts, x->zeno_closures));
    APPEND(snprintf(AT, REST, "\"nonsmooth_steps\": %ld, ", x->nonsmooth_steps));
    APPEND(s_num(AT, REST, "nonsmooth_error_estimate", x->nonsmooth_error_estimate, 0));
    APPEND(s_num(AT, REST, "max_penetration", x->max_penetration, 0));
    APPEND(s_num(AT, REST, "max_complementarity_error", x->max_complementarity_error, 0));
    APPEND(s_num(AT, REST, "tolerance", x->tolerance, 0));
    APPEND(s_num(AT, REST, "abs_tolerance", x->abs_tolerance, 0));
    APPEND(s_num(AT, REST, "error_estimate", x->error_estimate, 0));
    APPEND(snprintf(AT, REST, "\"tolerance_met\": %s, \"warning_count\": %d, \"warnings\": [",
                    x->tolerance_met ? "true" : "false", x->nwarning));
    for (int i = 0; i < x->nwarning && i < MBS_WARN_MAX; i++) {
        /* warning texts are produced by the library and contain no quotes */
        APPEND(snprintf(AT, REST, "%s\"%s\"", i ? ", " : "", x->warning[i]));
    }
    APPEND(snprintf(AT, REST, "]}"));
    return (int)len;
}

int mbs_report_json(const mbs_report *r, char *buf, size_t size)
{
    size_t len = 0;
    if (!buf) size = 0;
    APPEND(snprintf(AT, REST, "{\"dimension\": %d, \"bodies\": %d, \"joints\": %d, \"degrees_of_freedom\": %d, "
                    "\"coordinates_before_elimination\": %d, \"constraints_before_elimination\": %d, "
                    "\"eliminated_constant\": %d, \"eliminated_equal\": %d, "
                    "\"coordinates_after_elimination\": %d, \"constraints_after_elimination\": %d, "
                    "\"redundant_constraints\": %d, \"redundant_joints\": \"%s\", ",
                    r->dim, r->nbody, r->njoint, r->dof, r->coords_before, r->constraints_before,
                    r->eliminated_constant, r->eliminated_equal, r->coords_after, r->constraints_after,
                    r->redundant, r->redundant_joints));
    APPEND(s_num(AT, REST, "assembly_residual", r->assembly_residual, 0));
    APPEND(snprintf(AT, REST, "\"assembly_iterations\": %d, ", r->assembly_iterations));
    APPEND(s_num(AT, REST, "assembly_max_move", r->assembly_max_move, 0));
    APPEND(s_num(AT, REST, "velocity_correction", r->velocity_correction, 0));
    APPEND(s_num(AT, REST, "min_singular_ratio", r->min_singular_ratio, 0));
    APPEND(snprintf(AT, REST, "\"relative_coordinates\": %d, \"relative_constraints\": %d, \"relative_chords\": %d, "
                    "\"relative_longest_loop\": %d, \"relative_floating_roots\": %d, ", r->rel_coords,
                    r->rel_constraints, r->rel_chords, r->rel_longest_loop, r->rel_roots));
    APPEND(snprintf(AT, REST, "\"half_bandwidth\": %d, \"warnings\": [", r->bandwidth));
    for (int i = 0; i < r->warnings; i++) {
        /* warning texts are produced by the library and contain no quotes */
        APPEND(snprintf(AT, REST, "%s\"%s\"", i ? ", " : "", r->warning[i]));
    }
    APPEND(snprintf(AT, REST, "]}"));
    return (int)len;
}

void mbs_result_free(mbs_result *r)
{
    if (!r) return;
    free(r->rows);
    free(r->frames);
    free(r->contacts);
    r->rows = r->frames = r->contacts = NULL;
    r->nsample = r->cap = r->nframe = r->frame_cap = 0;
    r->ncontact_rec = r->contact_cap = r->contact_frames = 0;
}
