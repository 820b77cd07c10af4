/*
 * dcmotor.c - the permanent-magnet DC motor (dcmotor.h).
 */
#include "mbs/actuator/dcmotor.h"

#include <math.h>
#include <string.h>

int mbs_dcmotor_check(const mbs_dcmotor *m)
{
    const double v[] = {m->R, m->L, m->kt, m->ke, m->J, m->b, m->tc, m->ratio, m->eta};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) if (!isfinite(v[k])) return -1;
    if (!(m->R > 0) || m->L < 0 || m->J < 0 || m->b < 0 || m->tc < 0 || m->ratio == 0) return -1;
    if (!(m->eta > 0 && m->eta <= 1) || !(m->v_max > 0) || !(m->i_max > 0)) return -1;
    if (m->tc > 0 && !(m->w_eps > 0 && isfinite(m->w_eps))) return -1;
    return 0;
}

void mbs_dcmotor_eval(const mbs_dcmotor *m, double V, double i, double wj, mbs_dcmotor_state *s)
{
    memset(s, 0, sizeof *s);
    double N = m->ratio, wm = N * wj;
    /* supply voltage limit */
    double dVv = 1;
    if (V > m->v_max) { V = m->v_max; dVv = 0; }
    else if (V < -m->v_max) { V = -m->v_max; dVv = 0; }
    s->v = V;
    double di_dw = 0, di_dV = 0; /* of the algebraic current */
    if (m->L == 0) {
        i = (V - m->ke * wm) / m->R;
        di_dw = -m->ke * N / m->R;
        di_dV = dVv / m->R;
        if (i > m->i_max || i < -m->i_max) { i = i > 0 ? m->i_max : -m->i_max; di_dw = di_dV = 0; }
    } else {
        double rate = (V - m->R * i - m->ke * wm) / m->L;
        s->di = rate;
        s->ddi_di = -m->R / m->L;
        s->ddi_dw = -m->ke * N / m->L;
        s->ddi_dV = dVv / m->L;
        /* current limit: the drive lowers its voltage to at most R i_max +
         * ke w_m, the voltage that holds i_max at this speed, so di/dt =
         * min(rate, R (i_max - i) / L) (and the mirror image below
         * -i_max): continuous in i, the current approaching the limit with
         * the electrical time constant and staying there.  A switch of
         * di/dt to 0 at the limit had no BDF solution while the current
         * rode it (the implicit equation jumps across zero there) */
        double hold = m->R * (m->i_max - i) / m->L, hold_n = m->R * (-m->i_max - i) / m->L;
        if (hold < rate || hold_n > rate) {
            s->di = hold < rate ? hold : hold_n;
            s->ddi_dw = s->ddi_dV = 0;
            /* the voltage the drive applies: V - L (rate - di) */
            V -= m->L * (rate - s->di);
            s->v = V;
        }
    }
    s->i = i;
    /* friction at the motor: viscous, and Coulomb regularised by tanh */
    double fr = m->b * wm, dfr = m->b;
    if (m->tc > 0) {
        double th = tanh(wm / m->w_eps);
        fr += m->tc * th;
        dfr += m->tc * (1 - th * th) / m->w_eps;
    }
    double tm = m->kt * i - fr;
    /* the gear loses in both directions of the power flow: driving the
     * load, the joint gets eta of the motor's shaft power P = tm w_m; back-
     * driven (P < 0), the motor gets eta of the joint's, i.e. the joint
     * torque is N tm / eta.  Factor e = eta^sigma, sigma = tanh(P / p_eps)
     * (the same regularisation as the Coulomb friction: p_eps the back-EMF
     * damping's power at w_eps), so the loss P (1 - e) is never negative */
    double p_eps = m->kt * m->ke * m->w_eps * m->w_eps / m->R;
    double P = tm * wm, sg = tanh(P / p_eps), e = pow(m->eta, sg);
    double de_dP = m->eta < 1 ? e * log(m->eta) * (1 - sg * sg) / p_eps : 0;
    s->torque = e * N * tm;
    /* d torque = N (e dtm + tm de_dP dP), dP = w_m dtm + tm dw_m: through i
     * (state when L > 0, algebraic otherwise) and wj */
    double g = e + tm * de_dP * wm; /* N g: d torque / d tm at fixed w_m */
    if (m->L > 0) {
        s->dT_di = N * g * m->kt;
        s->dT_dw = N * (g * (-dfr * N) + tm * de_dP * tm * N);
        s->dT_dV = 0;
    } else {
        s->dT_di = 0;
        s->dT_dw = N * (g * (m->kt * di_dw - dfr * N) + tm * de_dP * tm * N);
        s->dT_dV = N * g * m->kt * di_dV;
    }
    /* power flows: input = copper + magnetic rate + friction + gear + output */
    s->p_in = V * i;
    s->p_copper = m->R * i * i;
    s->p_friction = fr * wm;
    s->p_out = s->torque * wj;
    s->p_gear = (1 - e) * tm * wm;
    s->e_magnetic = 0.5 * m->L * i * i;
}
