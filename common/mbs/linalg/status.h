/*
 * status.h - the return codes of the library (public through mbs.h):
 * 0 on success, a negative MBS_E* code on failure.  In the lowest layer so
 * that every layer, the linear algebra and LCP solvers included, returns
 * the same codes.
 */
#ifndef MBS_STATUS_H
#define MBS_STATUS_H

enum {
    MBS_OK = 0,
    MBS_EINVAL = -1,     /* invalid input (spec, option, name)               */
    MBS_EASSEMBLY = -2,  /* initial configuration cannot be assembled          */
    MBS_ESINGULAR = -3,  /* singular system (e.g. massless body, lock-up)      */
    MBS_EDIVERGE = -4,   /* integrator could not continue (step too small)     */
    MBS_ETIMEOUT = -5,   /* time limit reached                                 */
    MBS_ENOMEM = -6,
    MBS_ECANCEL = -7     /* cancelled by the progress callback                 */
};

#endif
