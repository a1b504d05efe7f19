"""Plots of a study as standalone SVG files (no plotting library needed).

* `history.svg` -- GFLOP/s of every successful trial by trial number, and the best so far;
* `knobs.svg`   -- for every knob, the best and the median GFLOP/s reached with each option.
"""

from __future__ import annotations

import os
from html import escape

import pandas as pd

_W, _H, _PAD = 640, 320, 48


def _scale(value: float, lo: float, hi: float, out_lo: float, out_hi: float) -> float:
    if hi <= lo:
        return (out_lo + out_hi) / 2
    return out_lo + (value - lo) / (hi - lo) * (out_hi - out_lo)


def _frame(title: str, width: int, height: int) -> list[str]:
    return [
        (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
         f'font-family="sans-serif" font-size="11">'),
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="13">{escape(title)}</text>',
    ]


def history_svg(frame: pd.DataFrame, title: str) -> str:
    ok = frame[frame["status"] == "ok"].sort_values("number")
    lines = _frame(title, _W, _H)
    x0, x1, y0, y1 = _PAD, _W - 16, _H - _PAD, 32
    lines.append(f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" stroke="black"/>')
    lines.append(f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}" stroke="black"/>')
    lines.append(f'<text x="{(x0 + x1) / 2}" y="{_H - 12}" text-anchor="middle">trial</text>')
    lines.append(f'<text x="12" y="{(y0 + y1) / 2}" transform="rotate(-90 12 {(y0 + y1) / 2})" '
                 'text-anchor="middle">GFLOP/s</text>')
    if ok.empty:
        lines.append(f'<text x="{_W / 2}" y="{_H / 2}" text-anchor="middle">no successful '
                     'trial</text></svg>')
        return "\n".join(lines)
    last = int(frame["number"].max())
    top = float(ok["gflops"].max()) * 1.1
    for tick in range(5):
        value = top * tick / 4
        y = _scale(value, 0, top, y0, y1)
        lines.append(f'<text x="{x0 - 4}" y="{y + 4}" text-anchor="end">{value:.3g}</text>')
    best_points = []
    best = 0.0
    for number, gflops in zip(ok["number"], ok["gflops"]):
        x = _scale(float(number), 0, max(last, 1), x0 + 4, x1)
        y = _scale(float(gflops), 0, top, y0, y1)
        lines.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="steelblue">'
                     f'<title>trial {int(number)}: {gflops:.2f} GFLOP/s</title></circle>')
        best = max(best, float(gflops))
        best_points.append(f"{x:.1f},{_scale(best, 0, top, y0, y1):.1f}")
    lines.append(f'<polyline points="{" ".join(best_points)}" fill="none" stroke="firebrick"/>')
    lines.append(f'<text x="{x1}" y="{y1 + 10}" text-anchor="end" fill="firebrick">best so far '
                 f'{best:.2f} GFLOP/s</text>')
    lines.append("</svg>")
    return "\n".join(lines)


def knobs_svg(frame: pd.DataFrame, knobs: list[str], title: str) -> str:
    ok = frame[frame["status"] == "ok"]
    row_h, label_w, bar_w = 16, 160, 360
    rows = sum(1 + ok[k].nunique() for k in knobs) if not ok.empty else 1
    height = 40 + rows * row_h + 24
    lines = _frame(title, label_w + bar_w + 120, height)
    if ok.empty:
        lines.append('<text x="20" y="50">no successful trial</text></svg>')
        return "\n".join(lines)
    top = float(ok["gflops"].max())
    y = 40
    for knob in knobs:
        lines.append(f'<text x="8" y="{y + 11}" font-weight="bold">{escape(knob)}</text>')
        y += row_h
        for option, group in ok.groupby(knob, sort=True):
            best, median = float(group["gflops"].max()), float(group["gflops"].median())
            width = _scale(best, 0, top, 0, bar_w)
            mid = _scale(median, 0, top, 0, bar_w)
            lines.append(f'<text x="{label_w - 6}" y="{y + 11}" text-anchor="end">'
                         f'{escape(str(option))}</text>')
            lines.append(f'<rect x="{label_w}" y="{y + 2}" width="{width:.1f}" height="{row_h - 4}"'
                         f' fill="lightsteelblue"/>')
            lines.append(f'<rect x="{label_w}" y="{y + 5}" width="{mid:.1f}" height="{row_h - 10}"'
                         f' fill="steelblue"/>')
            lines.append(f'<text x="{label_w + bar_w + 6}" y="{y + 11}">best {best:.2f}, median '
                         f'{median:.2f} ({len(group)})</text>')
            y += row_h
    lines.append(f'<text x="8" y="{height - 8}">GFLOP/s per option: light bar = best, '
                 'dark bar = median, (n) = successful trials</text>')
    lines.append("</svg>")
    return "\n".join(lines)


def write_plots(frame: pd.DataFrame, knobs: list[str], folder: str, study_name: str) -> list[str]:
    """Write history.svg and knobs.svg into `folder`; returns the paths written."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    for name, text in (
        ("history.svg", history_svg(frame, f"{study_name}: GFLOP/s by trial")),
        ("knobs.svg", knobs_svg(frame, knobs, f"{study_name}: GFLOP/s by knob option")),
    ):
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
        paths.append(path)
    return paths
