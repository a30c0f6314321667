"""Themes by code: papers clustered on their embeddings (spherical k-means, k chosen by
silhouette); the model only names and summarises each cluster."""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

MIN_THEMES, MAX_THEMES = 4, 6
MAX_NAME_WORDS = 8  # what the prompt asks for
_ITERATIONS = 50


def _kmeans(vectors: np.ndarray, k: int) -> np.ndarray:
    """Labels from spherical k-means with deterministic farthest-point seeding."""
    centre = vectors.mean(axis=0)
    seeds = [int(np.argmax(vectors @ centre))]
    while len(seeds) < k:
        closest = (vectors @ vectors[seeds].T).max(axis=1)
        seeds.append(int(np.argmin(closest)))
    centroids = vectors[seeds].copy()
    labels = np.zeros(len(vectors), dtype=int)
    for _ in range(_ITERATIONS):
        new = np.argmax(vectors @ centroids.T, axis=1)
        if np.array_equal(new, labels) and _ > 0:
            break
        labels = new
        for j in range(k):
            members = vectors[labels == j]
            if len(members):
                mean = members.mean(axis=0)
                centroids[j] = mean / max(float(np.linalg.norm(mean)), 1e-12)
    return labels


def _silhouette(vectors: np.ndarray, labels: np.ndarray) -> float:
    distance = 1.0 - vectors @ vectors.T
    scores = []
    for i, label in enumerate(labels):
        same = labels == label
        if same.sum() < 2:
            scores.append(0.0)
            continue
        inside = distance[i, same].sum() / (same.sum() - 1)
        outside = min(
            distance[i, labels == other].mean() for other in set(labels.tolist()) - {label}
        )
        scores.append((outside - inside) / max(inside, outside, 1e-12))
    return float(np.mean(scores))


def cluster(vectors: np.ndarray) -> list[list[int]]:
    """Indices of the vectors grouped into 4-6 themes (fewer for a handful of papers), each
    theme in index order, themes in order of their first member."""
    n = len(vectors)
    if n == 0:
        return []
    low, high = min(MIN_THEMES, max(1, n // 3)), min(MAX_THEMES, max(1, n // 2))
    if high <= 1:
        return [list(range(n))]
    best: tuple[float, np.ndarray] | None = None
    for k in range(max(2, low), high + 1):
        labels = _kmeans(vectors, k)
        score = _silhouette(vectors, labels)
        if best is None or score > best[0] + 1e-9:
            best = (score, labels)
    assert best is not None
    groups: dict[int, list[int]] = {}
    for index, label in enumerate(best[1].tolist()):
        groups.setdefault(label, []).append(index)
    return sorted((g for g in groups.values() if g), key=lambda g: g[0])


_TITLE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]{3,}")
_GENERIC_TEXT = (
    "large language model models llm llms efficient efficiency inference serving towards "
    "with without using fast faster via from into through scale scaling based"
)
_GENERIC = frozenset(_GENERIC_TEXT.split())


def keyword_name(member_titles: list[str], all_titles: list[str], words: int = 3) -> str:
    """A theme name by code (when the model gives none): the title words most particular to
    the members, weighted by how rare they are across all titles."""

    df = Counter(term for title in all_titles for term in _terms(title))
    tf = Counter(term for title in member_titles for term in _terms(title))
    total = len(all_titles) or 1
    ranked = sorted(tf, key=lambda t: (-tf[t] * math.log((total + 1) / df[t]), t))
    chosen = [t for t in ranked if tf[t] > 1][:words] or ranked[:words]
    return ", ".join(chosen).capitalize() if chosen else "Other papers"


def name_misfit(name: str, member_titles: list[str], taken: set[str]) -> str:
    """Why a model's theme name does not fit, or '' when it does: it must be new among the
    themes, read as words (not an identifier such as LIMITED_RESP), be short, name the theme
    rather than one of its papers (a theme of several papers named by one title), and share a
    particular word with its papers' titles."""
    if name.strip().lower() in taken:
        return "another theme has this name"
    if "_" in name:
        return "an identifier, not a name"
    if len(name.split()) > MAX_NAME_WORDS:
        return f"longer than a name ({len(name.split())} words)"
    if len(member_titles) > 1 and any(_names_one_paper(name, t) for t in member_titles):
        return "the title of one of its papers, not a name for all of them"
    stems = {t[:5] for title in member_titles for t in _terms(title)}
    if not any(t[:5] in stems for t in _terms(name)):
        return "shares no particular word with its papers' titles"
    return ""


def _names_one_paper(name: str, title: str) -> bool:
    """The name holds the title's words, or is one side of its colon (the system's name, or
    what follows it)."""
    words = _terms(name)
    sides = [_terms(side) for side in title.split(":", 1)] if ":" in title else []
    return bool(words) and (words >= _terms(title) or words in sides)


def _terms(text: str) -> set[str]:
    return {w.lower() for w in _TITLE_WORD.findall(text)} - _GENERIC
