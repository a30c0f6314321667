"""The results pages: claims across papers by metric family and baseline, with a plot of each
group over time and the disagreements marked, and the graph of who measures against whom."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response

from frontier.render.common import Context, value_with_unit
from frontier.store.browse import page_counts
from frontier.store.results import NAME_ROLES, canonical_names, topic_papers, verified_claim_count
from frontier.synthesize.measurement import FAMILY_NAMES, family_label, family_name
from frontier.synthesize.result_graph import ComparisonGraph, Edge, Node, comparison_graph
from frontier.synthesize.results import (
    KBResults,
    Result,
    ResultFilters,
    StoredKeys,
    current_keys,
    kb_results,
    keyed_results,
    picked,
)
from frontier.web import svg
from frontier.web.base import NotFound, View
from frontier.web.links import Links, quote_link

if TYPE_CHECKING:
    from frontier.web.server_state import ServerState
    from frontier.web.site_build import SiteBuild

RESULT_FILTERS = ("metric", "baseline", "model", "hardware", "topic")
TABLES_KEPT = 32  # filtered tables kept per loaded KB: readers page through a few at a time
MAX_GRAPH_NODES = 40  # the most measured; a bigger circle is unreadable
RESULTS_SHOWN = 1000  # on the server (the static site has them all)


def result_filters(params: Mapping[str, str]) -> dict[str, str]:
    """The filters a request asks for, as typed (empty ones left out)."""
    return {k: params.get(k, "").strip()[:200] for k in RESULT_FILTERS if params.get(k, "").strip()}


def _checked(ctx: Context, filters: dict[str, str]) -> tuple[ResultFilters, str | None, str]:
    """The filters as the results table takes them, the topic, and a notice when the metric
    family is not one frontier knows (then nothing matches)."""
    topic = filters.get("topic")
    if topic is not None and topic not in {t.slug for t in ctx.settings.topics}:
        raise NotFound(f"No topic '{topic}'.")
    asked = filters.get("metric")
    family = family_name(asked) if asked else None
    notice = ""
    if asked and family is None:
        notice = f"No metric family '{asked}' (known: {', '.join(FAMILY_NAMES)})."
    wanted = ResultFilters(
        family=family,
        baseline=filters.get("baseline"),
        model=filters.get("model"),
        hardware=filters.get("hardware"),
    )
    return wanted, topic, notice


def _results(
    conn: sqlite3.Connection, ctx: Context, filters: dict[str, str]
) -> tuple[list[Result], str]:
    wanted, topic, notice = _checked(ctx, filters)
    if notice:
        return [], notice
    keys = _stored_keys(ctx, conn)
    if keys is not None and wanted != ResultFilters():
        tables: dict[tuple[ResultFilters, str | None], list[Result]]
        tables = _memo(ctx).setdefault("tables", {})
        if (wanted, topic) not in tables:
            if len(tables) >= TABLES_KEPT:
                tables.pop(next(iter(tables)))
            tables[wanted, topic] = keyed_results(conn, keys, wanted, topic)
        return tables[wanted, topic], ""
    papers = None if topic is None else topic_papers(conn, topic)
    return picked(_every(ctx, conn), wanted, papers), ""


def _memo(ctx: Context) -> dict[str, Any]:
    """What the results pages read once per loaded KB (a change of the store loads a new one)."""
    memo: dict[str, Any] = ctx.__dict__.setdefault("_web_results", {})
    return memo


def _stored_keys(ctx: Context, conn: sqlite3.Connection) -> StoredKeys | None:
    """The KB's stored keys when every claim has current ones (then a filtered table reads only
    the claims it shows), else None."""
    memo = _memo(ctx)
    if "keys" not in memo:
        memo["keys"] = current_keys(conn, ctx.settings)
    keys: StoredKeys | None = memo["keys"]
    return keys


def _summary(ctx: Context, conn: sqlite3.Connection) -> tuple[int, dict[str, list[str]]]:
    """How many verified results the KB holds, and the names the form offers."""
    memo = _memo(ctx)
    if "summary" not in memo:
        if _stored_keys(ctx, conn) is not None:
            names = {
                role: sorted(canonical_names(conn, role), key=str.casefold) for role in NAME_ROLES
            }
            choices = {"metric": list(FAMILY_NAMES), **names}
            memo["summary"] = (verified_claim_count(conn), choices)
        else:
            everything = _every(ctx, conn).results
            memo["summary"] = (len(everything), _choices(everything))
    summary: tuple[int, dict[str, list[str]]] = memo["summary"]
    return summary


def _every(ctx: Context, conn: sqlite3.Connection) -> KBResults:
    """The KB's results with their keys, read once per loaded KB (a change of the store loads
    a new one), as the plots are drawn."""
    memo = _memo(ctx)
    if "all" not in memo:
        memo["all"] = kb_results(conn, ctx.settings)
    every: KBResults = memo["all"]
    return every


def _choices(everything: Sequence[Result]) -> dict[str, list[str]]:
    """The canonical names the form offers for each filter."""
    return {
        "metric": list(FAMILY_NAMES),
        "baseline": sorted({n for r in everything for n in r.baselines}, key=str.casefold),
        "model": sorted({n for r in everything for n in r.models}, key=str.casefold),
        "hardware": sorted({n for r in everything for n in r.hardware}, key=str.casefold),
    }


def results_view(
    ctx: Context,
    conn: sqlite3.Connection,
    filters: dict[str, str],
    links: Links,
    limit: int | None = None,
) -> View:
    """Verified results grouped by family and baseline, each group with its plot over time;
    the first `limit` rows."""
    found, notice = _results(conn, ctx, filters)
    total, choices = _summary(ctx, conn)
    counts = page_counts(conn)
    shown = found[:limit]
    ids = {r.claim.id for r in shown}
    groups = [_group(ctx, members, links, counts, ids) for members in _grouped(shown)]
    data = {
        "groups": groups,
        "matching": len(found),
        "shown": len(shown),
        "total": total,
        "disagreeing": sum(1 for r in found if r.disagrees),
        "filters": filters,
        "notice": notice,
        "choices": choices,
        "topics": ctx.settings.topics,
        "page_counts": counts,
    }
    return View("results.html", "Results across papers", data)


def _grouped(results: Sequence[Result]) -> list[list[Result]]:
    """Runs of results with the same family and baseline (the table is sorted by them)."""
    groups: list[list[Result]] = []
    for result in results:
        if groups and groups[-1][0].group() == result.group():
            groups[-1].append(result)
        else:
            groups.append([result])
    return groups


def _group(
    ctx: Context,
    members: list[Result],
    links: Links,
    counts: dict[str, int],
    shown: set[int],
) -> dict[str, Any]:
    family, baseline = members[0].group()
    heading = (
        f"{family_label(family) or 'metric family unknown'} — vs {baseline or 'baseline unknown'}"
    )
    rows = [_row(ctx, r, links, counts, shown) for r in members]
    known = family is not None and baseline is not None
    return {
        "heading": heading,
        "rows": rows,
        "plots": _plots(members, links, counts) if known else [],
    }


def _row(
    ctx: Context, result: Result, links: Links, counts: dict[str, int], shown: set[int]
) -> dict[str, Any]:
    claim = result.claim
    others = [
        {"other": d, "paper": ctx.kb.papers.get(d.paper_id), "on_page": d.claim_id in shown}
        for d in result.disagrees
    ]
    return {
        "result": result,
        "claim": claim,
        "paper": ctx.kb.papers.get(claim.paper_id),
        "quote_link": quote_link(result, links, counts.get(claim.paper_id, 0)),
        "disagrees": others,
    }


def _plots(members: list[Result], links: Links, counts: dict[str, int]) -> list[Markup]:
    """One plot per unit in the group (× and % never share an axis)."""
    by_unit: dict[str, list[Result]] = {}
    for result in members:
        if result.value and result.value.unit and result.claim.date:
            by_unit.setdefault(result.value.unit, []).append(result)
    family, baseline = members[0].group()
    return [
        svg.values_by_date(
            _marks(results, links, counts), unit, f"{family} vs {baseline} by paper date ({unit})"
        )
        for unit, results in by_unit.items()
    ]


def _marks(results: list[Result], links: Links, counts: dict[str, int]) -> list[svg.DatedMark]:
    """One mark per paper: its headline claim, else its highest value."""
    chosen: dict[str, Result] = {}
    for result in results:
        best = chosen.get(result.claim.paper_id)
        if best is None or _prominence(result) > _prominence(best):
            chosen[result.claim.paper_id] = result
    marks = []
    for result in chosen.values():
        when = svg.fractional_year(result.claim.date)
        value = result.value
        if when is None or value is None:
            continue
        low = value.low if value.low is not None else value.high
        high = value.high if value.high is not None else value.low
        if low is None or high is None:
            continue
        note = f"{result.claim.title} ({result.claim.date}): {result.claim.value_text}"
        href = quote_link(result, links, counts.get(result.claim.paper_id, 0))
        printed = value_with_unit(result.claim)
        marks.append(svg.DatedMark(when, low, high, printed, href, note))
    return marks


def _prominence(result: Result) -> tuple[bool, float]:
    high = result.value.sort_key()[1] if result.value else 0.0
    return (result.claim.headline, high)


def results_graph_view(
    ctx: Context, conn: sqlite3.Connection, filters: dict[str, str], links: Links
) -> View:
    """Who reports results over whom: the graph, then each comparison with its claims."""
    found, notice = _results(conn, ctx, filters)
    graph = comparison_graph(found)
    counts = page_counts(conn)
    edges = [
        {
            "edge": edge,
            "claims": [
                {"result": r, "quote_link": quote_link(r, links, counts.get(r.claim.paper_id, 0))}
                for r in edge.results
            ],
        }
        for edge in graph.edges
    ]
    data = {
        "plot": graph_plot(graph, links),
        "edges": edges,
        "nodes": len(graph.nodes),
        "drawn": min(len(graph.nodes), MAX_GRAPH_NODES),
        "filters": filters,
        "notice": notice,
    }
    return View("results_graph.html", "Who measures against whom", data)


def graph_plot(graph: ComparisonGraph, links: Links) -> Markup:
    """The most measured nodes on a circle; an arrow per pair, its claims over all metrics."""
    nodes = graph.nodes[:MAX_GRAPH_NODES]
    index = {node.name: n for n, node in enumerate(nodes)}
    drawn = [svg.GraphNode(n.name, n.claims, n.kind, _node_link(n, links)) for n in nodes]
    pairs: dict[tuple[int, int], list[Edge]] = {}
    for edge in graph.edges:
        if edge.system in index and edge.baseline in index:
            pairs.setdefault((index[edge.system], index[edge.baseline]), []).append(edge)
    arrows = [
        svg.GraphEdge(source, target, sum(len(e.results) for e in edges), _edge_note(edges))
        for (source, target), edges in pairs.items()
    ]
    return svg.comparison_graph(drawn, arrows, "Who reports results over whom")


def _node_link(node: Node, links: Links) -> str:
    """The results measured against a node; a system no one measures against, all results."""
    if node.kind == "system":
        return links.url("results")
    return links.url("results", baseline=node.name)


def _edge_note(edges: list[Edge]) -> str:
    first = edges[0]
    metrics = ", ".join(f"{e.family} ({len(e.results)})" for e in edges)
    return f"{first.system} over {first.baseline}: {metrics}"


# how the server answers each page, and what the static site writes for it


def results_page(server: ServerState, request: Request) -> Response:
    filters = result_filters(request.query_params)
    with server.reading() as (conn, ctx):
        view = results_view(ctx, conn, filters, Links(), RESULTS_SHOWN)
        return server.page(view, ctx)


def results_files(site: SiteBuild) -> None:
    site.write("results", results_view(site.ctx, site.conn, {}, site.links("results")))


def results_graph_page(server: ServerState, request: Request) -> Response:
    filters = result_filters(request.query_params)
    with server.reading() as (conn, ctx):
        return server.page(results_graph_view(ctx, conn, filters, Links()), ctx)


def results_graph_files(site: SiteBuild) -> None:
    links = site.links("results_graph")
    site.write("results_graph", results_graph_view(site.ctx, site.conn, {}, links))
