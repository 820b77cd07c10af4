#!/usr/bin/env python3
"""bench/work_precision_plot.py - draw the work-precision diagram (SVG) from
the CSV written by build/bench/work_precision (python3 standard library only).

    python3 bench/work_precision_plot.py [build/bench/work_precision.csv] [bench/work_precision.svg]
    python3 bench/work_precision_plot.py --table [build/bench/work_precision.csv]   (markdown table)

Per mechanism a pair of log-log panels: error against tolerance (with the
100 x tol x L line of the tolerance-proportionality criterion) and error
against CPU time (median of 3 runs); one line per integrator. Filled markers
meet 100 x tol x L, hollow ones do not; runs that failed are listed under the
panel pair.
"""
import csv
import math
import sys
from xml.sax.saxutils import escape

COLORS = {"default": "#1f77b4", "bdf": "#d95f02", "dopri5": "#1b9e77", "event_driven": "#7570b3"}
ORDER = ["default", "bdf", "dopri5", "event_driven"]
PW, PH = 300, 220             # plot area of one panel
ML, MR, MT, MB = 62, 14, 50, 44  # margins of one panel
PAIR_GAP = 26
FAIL_H = 30                   # room for the failure notes under a pair
COLS = 2                      # panel pairs per row


def decades(values, pad=0.0):
    lo = min(values)
    hi = max(values)
    a = math.floor(math.log10(lo) - pad)
    b = math.ceil(math.log10(hi) + pad)
    if b - a < 2:
        b = a + 2
    return a, b


def sup(k):
    return '10<tspan dy="-6" font-size="9">%d</tspan>' % k


class Panel:
    def __init__(self, out, x0, y0, xr, yr, xlabel, ylabel, title):
        self.out, self.x0, self.y0, self.xr, self.yr = out, x0, y0, xr, yr
        px, py = x0 + ML, y0 + MT
        self.px, self.py = px, py
        out.append('<rect x="%g" y="%g" width="%d" height="%d" fill="#fff" stroke="#444"/>' % (px, py, PW, PH))
        xstep = 1 if xr[1] - xr[0] <= 8 else 2
        for k in range(xr[0], xr[1] + 1):
            x = self.X(10.0 ** k)
            out.append('<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#e4e4e4"/>' % (x, py, x, py + PH))
            if (k - xr[0]) % xstep == 0:
                out.append('<text x="%.1f" y="%g" font-size="11" text-anchor="middle">%s</text>' % (x, py + PH + 16, sup(k)))
        ystep = 1 if yr[1] - yr[0] <= 8 else 2
        for k in range(yr[0], yr[1] + 1):
            y = self.Y(10.0 ** k)
            out.append('<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#e4e4e4"/>' % (px, y, px + PW, y))
            if (k - yr[0]) % ystep == 0:
                out.append('<text x="%g" y="%.1f" font-size="11" text-anchor="end">%s</text>' % (px - 5, y + 4, sup(k)))
        out.append('<rect x="%g" y="%g" width="%d" height="%d" fill="none" stroke="#444"/>' % (px, py, PW, PH))
        out.append('<text x="%g" y="%g" font-size="12" text-anchor="middle">%s</text>' % (px + PW / 2, py + PH + 34, xlabel))
        out.append('<text x="%g" y="%g" font-size="12" text-anchor="middle" transform="rotate(-90 %g %g)">%s</text>'
                   % (px - 44, py + PH / 2, px - 44, py + PH / 2, ylabel))
        out.append('<text x="%g" y="%g" font-size="12" text-anchor="middle">%s</text>'
                   % (px + PW / 2, py - 7, escape(title)))

    def X(self, v):
        return self.px + (math.log10(v) - self.xr[0]) / (self.xr[1] - self.xr[0]) * PW

    def Y(self, v):
        v = min(max(v, 10.0 ** self.yr[0]), 10.0 ** self.yr[1])
        return self.py + PH - (math.log10(v) - self.yr[0]) / (self.yr[1] - self.yr[0]) * PH

    def line(self, pts, color, dash=None, width=1.6, opacity=1.0):
        if len(pts) < 2:
            return
        d = " ".join("%s%.1f,%.1f" % ("M" if i == 0 else "L", self.X(x), self.Y(y)) for i, (x, y) in enumerate(pts))
        self.out.append('<path d="%s" fill="none" stroke="%s" stroke-width="%g" stroke-opacity="%g"%s '
                        'clip-path="url(#c%d_%d)"/>'
                        % (d, color, width, opacity, ' stroke-dasharray="%s"' % dash if dash else "", self.px, self.py))

    def clip(self):
        self.out.append('<clipPath id="c%d_%d"><rect x="%g" y="%g" width="%d" height="%d"/></clipPath>'
                        % (self.px, self.py, self.px, self.py, PW, PH))

    def marker(self, x, y, color, filled, r=3.4):
        self.out.append('<circle cx="%.1f" cy="%.1f" r="%g" fill="%s" stroke="%s" stroke-width="1.4"/>'
                        % (self.X(x), self.Y(y), r, color if filled else "#fff", color))


def table(rows):
    """Markdown: one row per (mechanism, integrator), one column per tolerance;
    cell = error (m) / CPU ms, in bold when above 100 x tol x L."""
    tols = sorted({float(r["tolerance"]) for r in rows}, reverse=True)
    print("| mechanism (L) | integrator | " + " | ".join("tol %g" % t for t in tols) + " |")
    print("|---|---|" + "---:|" * len(tols))
    keys, mechs = [], []
    for r in rows:
        if r["mechanism"] not in mechs:
            mechs.append(r["mechanism"])
        if (r["mechanism"], r["integrator"]) not in keys:
            keys.append((r["mechanism"], r["integrator"]))
    # grouped by mechanism, integrators in legend order (the CSV may be
    # several runs of work_precision --integrator concatenated)
    keys.sort(key=lambda k: (mechs.index(k[0]), ORDER.index(k[1]) if k[1] in ORDER else len(ORDER)))
    for mech, integ in keys:
        cells = []
        L = None
        for t in tols:
            rr = [r for r in rows if r["mechanism"] == mech and r["integrator"] == integ and float(r["tolerance"]) == t]
            if not rr:
                cells.append("")
                continue
            r = rr[0]
            L = float(r["L"])
            if r["status"] != "ok":
                cells.append("**%s**" % r["status"])
                continue
            e = float(r["error"])
            c = "%.1e / %.3g" % (e, 1e3 * float(r["cpu_seconds"]))
            cells.append(c if e <= 100 * t * L else "**%s**" % c)
        print("| %s (%g m) | %s | %s |" % (mech, L, integ, " | ".join(cells)))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--table":
        table(list(csv.DictReader(open(sys.argv[2] if len(sys.argv) > 2 else "build/bench/work_precision.csv"))))
        return
    src = sys.argv[1] if len(sys.argv) > 1 else "build/bench/work_precision.csv"
    dst = sys.argv[2] if len(sys.argv) > 2 else "bench/work_precision.svg"
    rows = list(csv.DictReader(open(src)))
    mechs = []
    for r in rows:
        if r["mechanism"] not in mechs:
            mechs.append(r["mechanism"])
    pair_w = 2 * (ML + PW + MR) + PAIR_GAP
    pair_h = MT + PH + MB + FAIL_H
    head = 92
    nrow = (len(mechs) + COLS - 1) // COLS
    W = COLS * pair_w + 20
    H = head + nrow * pair_h + 10
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="DejaVu Sans, Arial, sans-serif">' % (W, H, W, H),
           '<rect width="100%" height="100%" fill="#fff"/>',
           '<text x="%d" y="24" font-size="17" font-weight="bold" text-anchor="middle">Work-precision: global error of '
           'the position channels at the reference times (make bench, bench/work_precision.c)</text>' % (W / 2),
           '<text x="%d" y="44" font-size="12" text-anchor="middle">only solver.tolerance set (abs_tolerance as the '
           'solver derives it); "default" = no solver.integrator; CPU time = median of 3 runs; filled marker: error '
           '&lt;= 100 &#215; tol &#215; L, hollow: above; L = characteristic length</text>' % (W / 2)]
    # legend
    lx = W / 2 - 65 * (len(ORDER) + 1)
    for i, name in enumerate(ORDER):
        x = lx + i * 130
        wide = name == "default"
        out.append('<line x1="%g" y1="62" x2="%g" y2="62" stroke="%s" stroke-width="%g" stroke-opacity="%g"/>'
                   % (x, x + 26, COLORS[name], 6 if wide else 2.4, 0.45 if wide else 1))
        out.append('<circle cx="%g" cy="62" r="%g" fill="%s"/>' % (x + 13, 5.5 if wide else 3.4, COLORS[name]))
        out.append('<text x="%g" y="66" font-size="12">%s</text>' % (x + 32, name))
    x = lx + len(ORDER) * 130
    out.append('<line x1="%g" y1="62" x2="%g" y2="62" stroke="#000" stroke-width="1.2" stroke-dasharray="6,4"/>' % (x, x + 26))
    out.append('<text x="%g" y="66" font-size="12">100 &#215; tol &#215; L (the test\'s limit)</text>' % (x + 32))
    out.append('<text x="%d" y="84" font-size="11" text-anchor="middle" fill="#555">"default" is drawn as a wide pale '
               'band under the others: where it hides behind another line, the default integrator is that one</text>'
               % (W / 2))

    for mi, mech in enumerate(mechs):
        mr = [r for r in rows if r["mechanism"] == mech]
        L = float(mr[0]["L"])
        ok = [r for r in mr if r["status"] == "ok" and float(r["error"]) == float(r["error"])]
        errs = [max(float(r["error"]), 1e-16) for r in ok]
        tols = [float(r["tolerance"]) for r in mr]
        cpus = [max(float(r["cpu_seconds"]), 1e-5) for r in ok]
        yr = decades(errs + [100 * min(tols) * L, 100 * max(tols) * L] if errs else [1e-12, 1])
        xr_t = decades(tols)
        xr_c = decades(cpus if cpus else [1e-3, 1])
        gx = 10 + (mi % COLS) * pair_w
        gy = head + (mi // COLS) * pair_h
        tend = mr[0]["t_end"]
        out.append('<text x="%g" y="%g" font-size="14" font-weight="bold" text-anchor="middle">%s</text>'
                   % (gx + pair_w / 2, gy + 16, escape("%s: L = %g m, %s reference values up to t = %s s"
                                                         % (mech, L, mr[0]["nref"], tend))))
        p1 = Panel(out, gx, gy, xr_t, yr, "tolerance (solver.tolerance)", "error (m)", "error vs tolerance")
        p2 = Panel(out, gx + ML + PW + MR + PAIR_GAP, gy, xr_c, yr, "CPU time (s)", "error (m)", "error vs CPU time")
        p1.clip()
        p2.clip()
        # inverted tolerance axis reads left-to-right as "more accurate": keep the natural one, label says it
        p1.line([(t, 100 * t * L) for t in sorted(set(tols))], "#000", dash="6,4", width=1.2)
        fails = []
        for name in ORDER:
            pts = sorted((float(r["tolerance"]), max(float(r["error"]), 1e-16), max(float(r["cpu_seconds"]), 1e-5),
                          float(r["error"]) <= 100 * float(r["tolerance"]) * L)
                         for r in ok if r["integrator"] == name)
            wide = name == "default"
            p1.line([(a, b) for a, b, c, d in pts], COLORS[name], width=6 if wide else 1.6, opacity=0.45 if wide else 1)
            p2.line([(c, b) for a, b, c, d in pts], COLORS[name], width=6 if wide else 1.6, opacity=0.45 if wide else 1)
            for a, b, c, d in pts:
                p1.marker(a, b, COLORS[name], d, r=5.5 if wide else 3.4)
                p2.marker(c, b, COLORS[name], d, r=5.5 if wide else 3.4)
            bad = [r for r in mr if r["integrator"] == name and r not in ok]
            for st in sorted({r["status"] for r in bad}):
                fails.append("%s: %s at tol %s" % (name, st.replace("_", " "), ", ".join(
                    "%g" % float(r["tolerance"]) for r in bad if r["status"] == st)))
        if fails:
            out.append('<text x="%g" y="%g" font-size="11" fill="#b00">not plotted (run did not finish): %s</text>'
                       % (gx + ML, gy + MT + PH + MB + 14, escape("; ".join(fails))))
    out.append("</svg>")
    open(dst, "w").write("\n".join(out) + "\n")
    print("wrote %s (%d mechanisms)" % (dst, len(mechs)))


if __name__ == "__main__":
    main()
