"""Small server-rendered SVG charts: lines over time, stacked bars, dots per group.

Every label is escaped; colours are attributes (no inline style), so a strict CSP holds."""

from __future__ import annotations

import math
from collections.abc import Sequence

from markupsafe import Markup, escape

MAX_DOTS = 120  # per row; more are thinned to evenly spaced quantiles (the median uses all)
PALETTE = ("#3b6ea5", "#d1793b", "#4f9a63", "#b0504f", "#7c62a8", "#8a6d3b", "#c266a6", "#6b7280")
WIDTH, LEFT, RIGHT, TOP, BOTTOM = 760, 56, 170, 16, 56


def color(n: int) -> str:
    return PALETTE[n % len(PALETTE)]


def _svg(height: int, label: str, body: list[str]) -> Markup:
    head = (
        f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'
    )
    return Markup(head + f"<title>{escape(label)}</title>" + "".join(body) + "</svg>")


def empty(message: str) -> Markup:
    return Markup('<p class="empty">') + escape(message) + Markup("</p>")


def nice_max(value: float) -> float:
    """A round number at or above `value`, for the top of an axis."""
    if value <= 0:
        return 1.0
    step = 10 ** math.floor(math.log10(value))
    for factor in (1, 2, 2.5, 5, 10):
        if factor * step >= value:
            return factor * step
    return 10 * step


def _fmt(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:g}M"
    if value >= 1e3:
        return f"{value / 1e3:g}k"
    return f"{value:g}"


def _y_axis(top: float, height: int, plot_w: int) -> list[str]:
    """Horizontal grid lines with their values, four steps from 0 to `top`."""
    out = []
    for n in range(5):
        value = top * n / 4
        y = TOP + (height - TOP - BOTTOM) * (1 - n / 4)
        out.append(
            f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{_fmt(value)}</text>'
        )
    return out


def _x_labels(labels: Sequence[str], xs: Sequence[float], height: int) -> list[str]:
    every = max(1, math.ceil(len(labels) / 8))
    return [
        f'<text x="{x:.1f}" y="{height - BOTTOM + 16}" text-anchor="middle" font-size="11">'
        f"{escape(label)}</text>"
        for n, (label, x) in enumerate(zip(labels, xs, strict=True))
        if n % every == 0
    ]


def _legend(names: Sequence[str]) -> list[str]:
    x = WIDTH - RIGHT + 14
    out = []
    for n, name in enumerate(names):
        y = TOP + 8 + n * 18
        out.append(
            f'<rect x="{x}" y="{y - 9}" width="10" height="10" fill="{color(n)}"/>'
            f'<text x="{x + 16}" y="{y}" font-size="12">{escape(name[:24])}</text>'
        )
    return out


def line_chart(labels: Sequence[str], series: dict[str, list[float]], label: str) -> Markup:
    """One line per series over the same x labels (e.g. months)."""
    if not labels or not series:
        return empty("No data to plot yet.")
    height, plot_w = 300, WIDTH - LEFT - RIGHT
    top = nice_max(max(max(values) for values in series.values()))
    step = plot_w / max(1, len(labels) - 1)
    xs = [LEFT + n * step for n in range(len(labels))]
    body = _y_axis(top, height, plot_w) + _x_labels(labels, xs, height)
    for n, (name, values) in enumerate(series.items()):
        points = " ".join(
            f"{x:.1f},{TOP + (height - TOP - BOTTOM) * (1 - v / top):.1f}"
            for x, v in zip(xs, values, strict=True)
        )
        body.append(
            f'<polyline class="series" fill="none" stroke="{color(n)}" stroke-width="2" '
            f'points="{points}"><title>{escape(name)}</title></polyline>'
        )
    return _svg(height, label, body + _legend(list(series)))


def stacked_bars(labels: Sequence[str], stacks: dict[str, list[float]], label: str) -> Markup:
    """One bar per label, each made of the stacks' values on top of one another."""
    if not labels or not stacks:
        return empty("No data to plot yet.")
    height, plot_w = 300, WIDTH - LEFT - RIGHT
    totals = [sum(values[n] for values in stacks.values()) for n in range(len(labels))]
    top = nice_max(max(totals))
    slot = plot_w / len(labels)
    xs = [LEFT + slot * (n + 0.5) for n in range(len(labels))]
    body = _y_axis(top, height, plot_w) + _x_labels(labels, xs, height)
    scale = (height - TOP - BOTTOM) / top
    for n, x in enumerate(xs):
        base = height - BOTTOM
        for k, (name, values) in enumerate(stacks.items()):
            h = values[n] * scale
            base -= h
            body.append(
                f'<rect class="bar" x="{x - slot * 0.35:.1f}" y="{base:.1f}" width="{slot * 0.7:.1f}" '
                f'height="{h:.1f}" fill="{color(k)}"><title>{escape(labels[n])}: '
                f"{escape(name)} {values[n]:g}</title></rect>"
            )
    return _svg(height, label, body + _legend(list(stacks)))


def dot_rows(groups: dict[str, list[tuple[float, str]]], unit: str, label: str) -> Markup:
    """One row per group, a dot per (value, note), and a tick at each row's median."""
    if not groups:
        return empty("No data to plot yet.")
    row_h, left = 28, 190
    height = TOP + BOTTOM + row_h * len(groups)
    plot_w = WIDTH - left - 40
    top = nice_max(max(v for values in groups.values() for v, _ in values))
    x_of = lambda v: left + plot_w * v / top  # noqa: E731
    body = []
    for n in range(5):
        value, x = top * n / 4, x_of(top * n / 4)
        body.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{height - BOTTOM}" stroke="#ddd"/>'
            f'<text x="{x:.1f}" y="{height - BOTTOM + 16}" text-anchor="middle" font-size="11">'
            f"{_fmt(value)}{escape(unit)}</text>"
        )
    for n, (name, values) in enumerate(groups.items()):
        y = TOP + row_h * (n + 0.5)
        body.append(
            f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end" font-size="12">'
            f"{escape(name[:24])} ({len(values)})</text>"
        )
        for value, note in thinned(values, MAX_DOTS):
            body.append(
                f'<circle class="dot" cx="{x_of(value):.1f}" cy="{y:.1f}" r="5" fill="{color(n)}" '
                f'fill-opacity="0.75"><title>{escape(note)}: {value:g}{escape(unit)}</title></circle>'
            )
        mid = x_of(_median([v for v, _ in values]))
        body.append(
            f'<line x1="{mid:.1f}" x2="{mid:.1f}" y1="{y - 9:.1f}" y2="{y + 9:.1f}" stroke="#222" '
            'stroke-width="2"/>'
        )
    return _svg(height, label, body)


def thinned(values: list[tuple[float, str]], most: int) -> list[tuple[float, str]]:
    """At most `most` of the values, evenly spaced in value order, the extremes kept."""
    if len(values) <= most:
        return values
    ordered = sorted(values)
    step = (len(ordered) - 1) / (most - 1)
    return [ordered[round(n * step)] for n in range(most)]


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
