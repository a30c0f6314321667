"""Small server-rendered SVG charts: lines over time, stacked bars, dots per group, values by
date, a graph of comparisons.

Every label is escaped; colours are attributes (no inline style), so a strict CSP holds."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

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
    step: float = 10 ** math.floor(math.log10(value))
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
        base: float = height - BOTTOM
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

    def x_of(v: float) -> float:
        return left + plot_w * v / top

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


@dataclass(frozen=True)
class DatedMark:
    """One paper's value at its date: a dot at `high` (a bar down to `low` for a range), its
    label the value as printed, the whole mark a link."""

    when: float  # the date as a fractional year
    low: float
    high: float
    label: str
    href: str
    note: str  # the tooltip: the paper and its claim


def fractional_year(date: str) -> float | None:
    """YYYY, YYYY-MM or YYYY-MM-DD as a fractional year; None when it is not a date."""
    parts = date.split("-")
    if not parts[0].isdigit() or len(parts[0]) != 4:
        return None
    month = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 1
    day = int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else 1
    return int(parts[0]) + (min(max(month, 1), 12) - 1) / 12 + (min(max(day, 1), 31) - 1) / 372


def _year_month(when: float) -> str:
    year = math.floor(when)
    return f"{year}-{min(12, math.floor((when - year) * 12) + 1):02d}"


def values_by_date(marks: Sequence[DatedMark], unit: str, label: str) -> Markup:
    """Reported values over time: one linked mark per paper, labelled with its printed value."""
    if not marks:
        return empty("No dated value to plot.")
    height, plot_w = 260, WIDTH - LEFT - RIGHT
    first, last = min(m.when for m in marks), max(m.when for m in marks)
    if last - first < 0.25:  # one date (or nearly): a quarter either side keeps marks apart
        first, last = first - 0.25, last + 0.25
    top = nice_max(max(m.high for m in marks))

    def x_of(w: float) -> float:
        return LEFT + plot_w * (w - first) / (last - first)

    def y_of(v: float) -> float:
        return TOP + (height - TOP - BOTTOM) * (1 - v / top)

    ticks = [first + (last - first) * n / 4 for n in range(5)]
    body = _y_axis(top, height, plot_w) + _x_labels(
        [_year_month(t) for t in ticks], [x_of(t) for t in ticks], height
    )
    body.append(f'<text x="{LEFT + plot_w + 8}" y="{TOP + 4}" font-size="11">{escape(unit)}</text>')
    for mark in sorted(marks, key=lambda m: (m.when, m.high)):
        body.append(_dated_mark(mark, x_of(mark.when), y_of(mark.low), y_of(mark.high)))
    return _svg(height, label, body)


def _dated_mark(mark: DatedMark, x: float, y_low: float, y_high: float) -> str:
    bar = (
        f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y_low:.1f}" y2="{y_high:.1f}" '
        f'stroke="{PALETTE[0]}" stroke-width="3"/>'
        if y_low - y_high > 1
        else ""
    )
    return (
        f'<a class="mark" href="{escape(mark.href)}"><title>{escape(mark.note)}</title>{bar}'
        f'<circle class="dot" cx="{x:.1f}" cy="{y_high:.1f}" r="5" fill="{PALETTE[0]}"/>'
        f'<text x="{x + 8:.1f}" y="{y_high - 6:.1f}" font-size="11">{escape(mark.label)}</text>'
        "</a>"
    )


@dataclass(frozen=True)
class GraphNode:
    name: str
    weight: int  # the claims on its edges
    kind: str  # system | baseline | both
    href: str


@dataclass(frozen=True)
class GraphEdge:
    """`count` claims of `source` (a node's index) reporting results over `target`."""

    source: int
    target: int
    count: int
    note: str


_NODE_FILL = {"system": PALETTE[1], "baseline": PALETTE[0], "both": PALETTE[4]}
GRAPH_HEIGHT, GRAPH_RADIUS, NODE_LABEL = 540, 170, 22


def _on_circle(n: int, count: int) -> tuple[float, float, float]:
    """The n-th of `count` places on the circle, clockwise from the top: x, y and the angle."""
    angle = -math.pi / 2 + 2 * math.pi * n / max(1, count)
    cx, cy = WIDTH / 2, GRAPH_HEIGHT / 2
    return cx + GRAPH_RADIUS * math.cos(angle), cy + GRAPH_RADIUS * math.sin(angle), angle


def comparison_graph(nodes: Sequence[GraphNode], edges: Sequence[GraphEdge], label: str) -> Markup:
    """Nodes on a circle in the order given (most measured first, from the top), an arrow from
    each system to each baseline it reports results over, with the number of claims."""
    if not nodes:
        return empty("No comparison to draw.")
    places = [_on_circle(n, len(nodes)) for n in range(len(nodes))]
    body = [
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        'fill="#888"/></marker></defs>'
    ]
    radii = [_node_radius(node) for node in nodes]
    for edge in edges:
        body.append(_graph_edge(edge, places, radii))
    for node, (x, y, angle), r in zip(nodes, places, radii, strict=True):
        body.append(_graph_node(node, x, y, angle, r))
    return _svg(GRAPH_HEIGHT, label, body + _kinds_legend())


def _kinds_legend() -> list[str]:
    out = []
    for n, (kind, fill) in enumerate(_NODE_FILL.items()):
        y = TOP + 8 + n * 18
        words = {"system": "reports results", "baseline": "measured against", "both": "both"}
        out.append(
            f'<circle cx="{WIDTH - 150}" cy="{y - 4}" r="5" fill="{fill}"/>'
            f'<text x="{WIDTH - 140}" y="{y}" font-size="12">{words[kind]}</text>'
        )
    return out


def _node_radius(node: GraphNode) -> float:
    return 5 + 2.5 * math.sqrt(node.weight)


def _graph_edge(
    edge: GraphEdge, places: Sequence[tuple[float, float, float]], radii: Sequence[float]
) -> str:
    (x1, y1, _), (x2, y2, _) = places[edge.source], places[edge.target]
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    dx, dy = (x2 - x1) / length, (y2 - y1) / length
    # the line ends at the rims, so the arrow head stays visible, and keeps to its right, so
    # A over B and B over A are two lines
    r1, r2 = radii[edge.source], radii[edge.target] + 2
    ox, oy = -dy * 4, dx * 4
    sx, sy = x1 + dx * r1 + ox, y1 + dy * r1 + oy
    ex, ey = x2 - dx * r2 + ox, y2 - dy * r2 + oy
    mx, my = (sx + ex) / 2, (sy + ey) / 2
    width = 1 + math.log2(edge.count)
    return (
        f'<g class="edge"><title>{escape(edge.note)}</title>'
        f'<line x1="{sx:.1f}" y1="{sy:.1f}" x2="{ex:.1f}" y2="{ey:.1f}" stroke="#888" '
        f'stroke-width="{width:.1f}" marker-end="url(#arrow)"/>'
        f'<text x="{mx:.1f}" y="{my - 3:.1f}" text-anchor="middle" font-size="11" '
        f'fill="#444">{edge.count}</text></g>'
    )


def _graph_node(node: GraphNode, x: float, y: float, angle: float, r: float) -> str:
    right = math.cos(angle) >= -1e-9
    tx, ty = x + math.cos(angle) * (r + 6), y + math.sin(angle) * (r + 6) + 4
    anchor = "start" if right else "end"
    if abs(math.cos(angle)) < 0.2:
        anchor = "middle"
        ty = y + (r + 14 if math.sin(angle) > 0 else -(r + 6))
    return (
        f'<a class="node" href="{escape(node.href)}"><title>{escape(node.name)}: {node.weight} '
        f"claim{'' if node.weight == 1 else 's'} ({escape(node.kind)})</title>"
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{_NODE_FILL[node.kind]}"/>'
        f'<text x="{tx:.1f}" y="{ty:.1f}" text-anchor="{anchor}" font-size="12">'
        f"{escape(node.name[:NODE_LABEL])}</text></a>"
    )
