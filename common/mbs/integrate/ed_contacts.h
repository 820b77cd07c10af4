/*
 * ed_contacts.h - planar rigid contacts of the event-driven integrator
 * (internal; ed_contacts.c, integrator_ed.c, docs/contacts.md "Event-driven
 * rigid contacts").
 *
 * Each rigid pair of a planar model has at most one contact point
 * (contact_rigid.h: every planar shape pair reports 0 or 1) with a state:
 *   OPEN   no force; event function g - goff (closing);
 *   SLIP   closed, the normal acceleration constraint
 *          G_n a + dG_n v = -2 alpha g' - beta^2 g  (multiplier -lam_n)
 *          and the friction lam_t = -mu sigma lam_n along t (sigma: slip
 *          direction); events lam_n (detachment) and sigma v_t (slip stops);
 *   STICK  closed, plus G_t a + dG_t v = -2 alpha v_t (multiplier -lam_t);
 *          events lam_n and mu lam_n - |lam_t|.
 * The KKT columns of pair p are col0 + 2 p (normal) and col0 + 2 p + 1
 * (tangent); an unused column has an identity row.
 */
#ifndef MBS_ED_CONTACTS_H
#define MBS_ED_CONTACTS_H

#include "mbs/formulation/contact_rows.h"
#include "mbs/formulation/dae_form.h"
#include "mbs/linalg/linalg.h"

enum { MBS_EDC_OPEN = 0, MBS_EDC_SLIP = 1, MBS_EDC_STICK = 2 };

typedef struct {
    int np;              /* rigid pairs (one point each)                        */
    int n, col0, nk;     /* variables, first contact column, KKT size           */
    int *pair;           /* (np) declared contact index                         */
    const int **pvars;   /* (np) the velocities its rows act on (contact rows)   */
    const mbs_contact_rows *rows; /* the formulation's contact rows              */
    double lscale;       /* the model's length scale                             */
    long stamp;          /* changes with each configuration given to rows        */
    int *plist, *plp;    /* (np) pairs handed to rows->points, their p           */
    int *pcnt, *pcntp, *pcntm; /* (np) their point counts at x, x + h v, x - h v */
    mbs_rpoint *buf, *bufp, *bufm; /* (cap) their points                        */
    int *state, *sigma;  /* (np) MBS_EDC_*, slip direction +-1                  */
    char *insys;         /* (np) in the system (deactivation active set)        */
    char *has;           /* (np) the narrow phase gave a point                  */
    char *cand, *stickc; /* (np) in the mode LCP; as a stick candidate           */
    mbs_rpoint *pt;      /* (np) point of the last evaluation                   */
    double *dgv;         /* (2 np) dG_n v, dG_t v                               */
    double *vn, *vt;     /* (np) relative normal and tangential velocities      */
    double *ln, *lt;     /* (np) normal and friction force of the last solve    */
    double *goff;        /* (np) offset of the gap event (the gap at opening)   */
    double *mu, *e;      /* (np) friction, restitution                          */
    double *mus;         /* (np) static friction: the stick limit (>= mu)       */
    double *xe;          /* (n) scratch                                         */
    double *resp;        /* (2 np nk) KKT responses to unit contact forces      */
    double eps;          /* regularisation of the contact rows (redundancy)     */
    double *epst;        /* (np) that of a sticking tangent row, weighted by the
                            mode LCP's friction split (redundant sticking
                            points share the friction as the LCP did)       */
    double nmax;         /* largest normal force seen (scale of the checks)     */
    int *grp;            /* (np) first pair of its redundant group: pairs that
                            share one shape while their other shapes are on
                            one body (the corners of a face on one surface):
                            their sticking tangent rows are redundant         */
    int *fslip;          /* (np) at an event: slip direction forced on a
                            sticking pair whose stick function fired, or 0  */
    /* LCPs (4 np unknowns at most) */
    int lmax;
    int *idx;            /* (np) candidates                                      */
    double *W;           /* (4 np^2) Delassus / response matrix                  */
    double *lM, *lq, *lz, *lw; /* (lmax^2), (lmax) x 3                           */
    void *lwork;
} mbs_edc;

/* Size the contact state for the model's rigid pairs, from the DAE form f
 * and the contact rows r (kept by pointer: r must outlive c); col0 = n + ne
 * + nf and nk the whole KKT size.  0 or -1 (no memory; mbs_edc_free
 * cleans). */
int mbs_edc_init(const mbs_dae_form *f, const mbs_contact_rows *r, const mbs_model *m, mbs_edc *c, int col0, int nk);
void mbs_edc_free(mbs_edc *c);

/* Contact points, relative velocities and dG v (central differences of
 * the rows along v) of the pairs in the system at (x, v).  d gives the
 * active set when solver.contact_deactivation is on. */
void mbs_edc_eval(const mbs_model *m, const mbs_data *d, mbs_edc *c, const double *x, const double *v);

/* Add the contact rows and columns of the current states to the KKT matrix
 * K and right-hand side rhs (Baumgarte ab, bb). */
void mbs_edc_assemble(mbs_edc *c, mbs_mat *K, double *rhs, double ab, double bb);

/* Contact forces lam_n, lam_t from the solved KKT vector sol. */
void mbs_edc_forces(mbs_edc *c, const double *sol);

/* The friction split of the sticking contacts from the normal forces of the
 * last solve (c->ln): epst_p = eps lref / (mu_p lam_n,p), lref the largest
 * mu lam_n, so that redundant sticking tangent rows (the corners of one
 * face) share the friction in proportion to their cone capacities, every
 * cone equally used, and all reach their limits at the same instant.
 * Only with two or more sticking contacts (one alone is not redundant).
 * Returns 1 when a weight moved by more than 1e-9 of itself (solve again). */
int mbs_edc_resplit(mbs_edc *c);

/* Event functions (2 np) of the last evaluation into g: gap - goff (open)
 * or lam_n (closed); sigma v_t (slip) or the stick reserve (stick):
 * mu lam_n - |lam_t|, summed over the sticking pairs of the redundant group
 * (c->grp) when there are several (their split is indeterminate, the sum
 * is not: all members fire together, at the instant the group's friction
 * reaches the sum of its cones). */
void mbs_edc_events(const mbs_edc *c, double *g);

/* Friction force of the sticking pairs in p's group (along t_p) from the
 * last solve (c->lt; p's own when it is not sticking). */
double mbs_edc_group_lt(const mbs_edc *c, int p);

/* Whether event function i (0 .. 2 np) exists for the current states
 * (pairs out of the system and frictionless tangents have none). */
int mbs_edc_event_exists(const mbs_edc *c, int i);

/* Contact complementarity error of the last evaluation (dimensionless, see
 * docs/contacts.md; velocities relative to max(|v|, vfloor)) and the
 * largest penetration into *pen. */
double mbs_edc_check(mbs_edc *c, const double *v, double vfloor, double *pen);

/* Impact at an event: Newton's law gamma_n+ >= -e_p gamma_n- (e_p = 0 for
 * an approach slower than vzeno: the Zeno rule) with planar Coulomb
 * impulses, for the candidates c->cand, as the Stewart-Trinkle LCP
 * solved by Lemke.  c->resp must hold the KKT responses (contacts open) of
 * every candidate's rows.  v (n) is updated; the impulses go to c->ln,
 * c->lt.  0, or MBS_EDIVERGE with a message naming the time and contact. */
int mbs_edc_impact(const mbs_model *m, mbs_data *d, mbs_edc *c, double t, double *v, double vzeno,
                   mbs_errlist *err);

/* Mode LCP at an event (Glocker-Pfeiffer, Lemke) for the candidates
 * c->cand: normal accelerations against lam_n; stick candidates
 * (c->stickc) with the tangential split, the others sliding in c->sigma.
 * a0 (n): accelerations with the candidates open; c->resp their responses.
 * Sets c->state (and sigma) of the candidates.  0 or MBS_EDIVERGE. */
int mbs_edc_mode_lcp(const mbs_model *m, mbs_data *d, mbs_edc *c, double t, const double *a0, mbs_errlist *err);

/* Name of pair p for messages: "'A' - 'B'". */
const char *mbs_edc_name(const mbs_model *m, const mbs_edc *c, int p, char *buf, size_t size);

/* G_r . u over the pair's variables (r = 0 normal, 1 tangent). */
double mbs_edc_gdot(const mbs_edc *c, int p, int r, const double *u);

#endif
