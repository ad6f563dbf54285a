#!/usr/bin/env python3
"""Draws fleet-rolling-restart.csv (RollingRestart --timeline) as fleet-rolling-restart.svg: per instance,
complete answers per second and mashups in flight, with the restarts and the kill marked.

    python3 docs/results/fleet-rolling-restart.py docs/results/fleet-rolling-restart.csv > docs/results/fleet-rolling-restart.svg
"""
import csv
import sys

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
W, PANEL, TOP, LEFT, GAP = 900, 220, 40, 60, 50


def main(path):
    rows = list(csv.reader(open(path)))
    header, rows = rows[0], rows[1:]
    names = [h[: -len("_complete")] for h in header if h.endswith("_complete")]
    samples = [r for r in rows if r[1] == "sample"]
    events = [(int(r[0]), ",".join(r[2:])) for r in rows if r[1] == "event"]
    t0 = int(samples[0][0])
    t1 = max(int(samples[-1][0]), max(t for t, _ in events))
    rate = {n: [] for n in names}
    inflight = {n: [] for n in names}
    for prev, cur in zip(samples, samples[1:]):
        dt = (int(cur[0]) - int(prev[0])) / 1000
        for i, n in enumerate(names):
            c, p = int(cur[2 + 2 * i]), int(prev[2 + 2 * i])
            f = int(cur[3 + 2 * i])
            t = int(cur[0])
            if c < 0 or f < 0:  # the instance did not answer its scrape
                rate[n].append((t, None))
                inflight[n].append((t, None))
                continue
            rate[n].append((t, (c - p if p >= 0 and c >= p else c) / dt))  # a restart starts the counter at 0
            inflight[n].append((t, f))

    def x(t):
        return LEFT + (t - t0) / (t1 - t0) * (W - LEFT - 20)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{TOP + 2 * PANEL + GAP + 40}" '
           'font-family="sans-serif" font-size="11">',
           f'<text x="{LEFT}" y="18" font-size="14">Rolling restart of 3 instances behind HAProxy, then kill -9 '
           '(60 mashups/s)</text>']
    for k, (title, series) in enumerate([("complete answers per second", rate), ("mashups in flight", inflight)]):
        y0 = TOP + k * (PANEL + GAP)
        top = max([v for s in series.values() for _, v in s if v is not None] + [1])

        def y(v):
            return y0 + PANEL - v / top * PANEL

        out.append(f'<rect x="{LEFT}" y="{y0}" width="{W - LEFT - 20}" height="{PANEL}" fill="none" stroke="#999"/>')
        out.append(f'<text x="{LEFT + 4}" y="{y0 + 14}">{title} (max {top:.0f})</text>')
        for v in (0, top / 2, top):
            out.append(f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.0f}</text>')
        for i, n in enumerate(names):
            path, pen = [], "M"
            for t, v in series[n]:
                if v is None:
                    pen = "M"
                    continue
                path.append(f"{pen}{x(t):.1f},{y(v):.1f}")
                pen = "L"
            out.append(f'<path d="{" ".join(path)}" fill="none" stroke="{COLOURS[i % len(COLOURS)]}" stroke-width="1.5"/>')
        for t, what in events:
            colour = "#000" if what.startswith(("SIGTERM", "SIGKILL")) else "#aaa"
            out.append(f'<line x1="{x(t):.1f}" y1="{y0}" x2="{x(t):.1f}" y2="{y0 + PANEL}" stroke="{colour}" '
                       'stroke-dasharray="3,3"/>')
            if k == 0 and what.startswith(("SIGTERM", "SIGKILL")):
                out.append(f'<text x="{x(t) + 2:.1f}" y="{y0 + 28}" font-size="10">{what}</text>')
    legend_y = TOP + 2 * PANEL + GAP + 25
    for i, n in enumerate(names):
        out.append(f'<rect x="{LEFT + i * 120}" y="{legend_y - 9}" width="12" height="3" fill="{COLOURS[i % len(COLOURS)]}"/>')
        out.append(f'<text x="{LEFT + i * 120 + 16}" y="{legend_y - 4}">{n}</text>')
    out.append(f'<text x="{LEFT}" y="{legend_y + 14}">dashed: SIGTERM / SIGKILL (black), '
               'exited, UP or DOWN in HAProxy (grey); gaps: the instance did not answer; '
               f'{(t1 - t0) / 1000:.0f} s in all</text>')
    out.append("</svg>")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
