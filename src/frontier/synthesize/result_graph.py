"""Who measures against whom: the results table as a graph. A node is a system, either the one a
paper reports on or a canonical baseline; an edge says "A reports results over B on metric M",
with the claims behind it. Only results with a known metric family and known baselines count,
and a system is never its own baseline (a variant against itself is not a comparison)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from frontier.synthesize.results import Result


@dataclass
class Edge:
    """`system` reports results over `baseline` on `family`, in these claims."""

    system: str
    baseline: str
    family: str
    results: list[Result] = field(default_factory=list)


@dataclass(frozen=True)
class Node:
    """A system in the graph; `claims` counts the results on its edges, either side."""

    name: str
    kind: str  # system (reports results) | baseline (measured against) | both
    claims: int


@dataclass(frozen=True)
class ComparisonGraph:
    nodes: list[Node]  # most claims first, then by name
    edges: list[Edge]  # most claims first, then by system, baseline and family


def comparison_graph(results: Sequence[Result]) -> ComparisonGraph:
    """The graph of the results' comparisons (see the module's docstring)."""
    edges: dict[tuple[str, str, str], Edge] = {}
    for result in results:
        if not result.family:
            continue
        for baseline in result.baselines:
            if baseline.casefold() == result.system.casefold():
                continue
            key = (result.system, baseline, result.family)
            edges.setdefault(key, Edge(*key)).results.append(result)
    ordered = sorted(edges.values(), key=_edge_order)
    return ComparisonGraph(_nodes(ordered), ordered)


def _edge_order(edge: Edge) -> tuple[Any, ...]:
    return (-len(edge.results), edge.system.casefold(), edge.baseline.casefold(), edge.family)


def _nodes(edges: Sequence[Edge]) -> list[Node]:
    claims: dict[str, int] = {}
    roles: dict[str, set[str]] = {}
    for edge in edges:
        for name, role in ((edge.system, "system"), (edge.baseline, "baseline")):
            claims[name] = claims.get(name, 0) + len(edge.results)
            roles.setdefault(name, set()).add(role)
    nodes = [Node(name, _kind(roles[name]), count) for name, count in claims.items()]
    return sorted(nodes, key=lambda n: (-n.claims, n.name.casefold()))


def _kind(roles: set[str]) -> str:
    return "both" if len(roles) == 2 else next(iter(roles))


QuoteLink = Callable[[Result], str]  # where a result's quote is shown


def graph_record(graph: ComparisonGraph, quote_link: QuoteLink) -> dict[str, Any]:
    """The graph as plain data: nodes, and edges with their claims and quote links."""
    return {
        "nodes": [{"name": n.name, "kind": n.kind, "claims": n.claims} for n in graph.nodes],
        "edges": [_edge_record(edge, quote_link) for edge in graph.edges],
    }


def _edge_record(edge: Edge, quote_link: QuoteLink) -> dict[str, Any]:
    return {
        "system": edge.system,
        "baseline": edge.baseline,
        "family": edge.family,
        "count": len(edge.results),
        "claims": [_claim_record(result, quote_link) for result in edge.results],
    }


def _claim_record(result: Result, quote_link: QuoteLink) -> dict[str, Any]:
    claim = result.claim
    return {
        "paper": claim.paper_id,
        "title": claim.title,
        "claim": claim.id,
        "value_text": claim.value_text,
        "unit": result.value.unit if result.value else None,
        "direction": claim.direction,
        "page": claim.page,
        "quote": claim.quote,
        "quote_link": quote_link(result),
        "verified": claim.verified,
    }
