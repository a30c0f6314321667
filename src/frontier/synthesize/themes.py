"""Themes by code: papers clustered on the embeddings of their titles and abstracts (spherical
k-means, k chosen by silhouette, a bound on a theme's size), a paper close to no theme set
apart, and each theme named by the phrase its papers share."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from frontier.text import WordStyle, fold_acronyms, split_clauses, split_words

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


_GENERIC_TEXT = (
    "large language model models llm llms efficient efficiency inference serving towards "
    "with without using fast faster via from into through scale scaling based"
)
_GENERIC = frozenset(_GENERIC_TEXT.split())


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
    return {
        w.lower() for w in split_words(text, WordStyle.ASCII_HYPHENATED, min_length=4)
    } - _GENERIC


MAX_SHARE = 0.3  # no theme holds more than this share of the papers (when there are 10 or more)
APART = 0.25  # a paper less similar than this to its theme's centre fits no theme


@dataclass(frozen=True)
class Grouping:
    themes: list[list[int]]  # indices of the vectors, each theme in index order
    apart: list[int]  # the papers that fit no theme


def group(vectors: np.ndarray) -> Grouping:
    """Themes over unit vectors: `cluster`, a theme above the size bound split in two, then a
    paper far from its theme's centre, or alone in it, set apart."""
    themes = [t for g in cluster(vectors) for t in _bounded(vectors, g, len(vectors))]
    kept, apart = [], []
    for members in themes:
        centre = vectors[members].mean(axis=0)
        centre /= max(float(np.linalg.norm(centre)), 1e-12)
        close = [i for i in members if float(vectors[i] @ centre) >= APART]
        apart += [i for i in members if i not in close]
        if len(close) >= 2 or len(vectors) < 4:
            kept.append(close)
        else:
            apart += close
    kept = [t for t in kept if t]
    return Grouping(sorted(kept, key=lambda t: t[0]), sorted(apart))


def _bounded(vectors: np.ndarray, members: list[int], total: int) -> list[list[int]]:
    if total < 10 or len(members) <= max(3, math.ceil(MAX_SHARE * total)):
        return [members]
    labels = _kmeans(vectors[members], 2)
    halves = [
        [m for m, label in zip(members, labels, strict=True) if label == side] for side in (0, 1)
    ]
    if not all(halves):
        return [members]
    return [t for half in halves for t in _bounded(vectors, half, total)]


# words that name no theme of their own: the function words of a title or a contribution
# sentence, and the field's words every paper of it uses
_STOP_TEXT = """a an the of for and or to in on with by from via as at into over under than that this
    these those its their our we us is are be can which while without through across based
    using use uses new novel simple fast faster efficient efficiently efficiency high
    large language model models llm llms inference towards toward paper work approach method
    methods technique techniques framework system systems propose proposes present presents
    introduce introduces show shows also both each such other more most up one two first"""
_STOP = frozenset(_STOP_TEXT.split())
MAX_PHRASE_WORDS = 3


def _key(words: list[str]) -> tuple[str, ...]:
    """Words as phrases are matched: lower case, hyphenated parts apart ("KV-cache" is "KV
    cache"), one form for singular and plural."""
    parts = [part.lower() for word in words for part in word.replace("'", "-").split("-") if part]
    return tuple(
        p[:-1] if len(p) > 4 and p.endswith("s") and not p.endswith("ss") else p for p in parts
    )


def phrases(text: str) -> dict[tuple[str, ...], str]:
    """The text's phrases of 1-3 words that neither start nor end with a function word, each
    by its matching key, with the form it is printed in; where the text defines an acronym,
    the phrases of both of its names ("key-value (KV) cache" holds "KV cache" and "key-value
    cache")."""
    found: dict[tuple[str, ...], str] = {}
    clauses = [*split_clauses(fold_acronyms(text)), *split_clauses(fold_acronyms(text, True))]
    for clause in clauses:
        words = split_words(clause, WordStyle.ASCII_JOINED)
        for i in range(len(words)):
            for n in range(1, MAX_PHRASE_WORDS + 1):
                run = words[i : i + n]
                if len(run) < n or run[0].lower() in _STOP or run[-1].lower() in _STOP:
                    continue
                if all(w.lower() in _STOP for w in run) or len(run[-1]) < 3:
                    continue
                found.setdefault(_key(run), " ".join(run))
    return found


def key_phrase(
    members: list[str],
    others: list[str],
    taken: set[str] | None = None,
    salient: list[str] | None = None,
) -> str:
    """The phrase most of the members' texts hold and the others' texts do not ('speculative
    decoding', 'KV cache'), in the form the members print it most; a phrase two members hold
    before one only one does; '' when there is none. A name in `taken` is another theme's;
    with `salient` texts (titles and contribution sentences), only a phrase one of them holds
    may name the theme."""
    inside = [phrases(t) for t in members]
    outside = [set(phrases(t)) for t in others]
    held = Counter(key for p in inside for key in p)
    if salient is not None:
        allowed = {key for text in salient for key in phrases(text)}
        held = Counter({key: n for key, n in held.items() if key in allowed})
    taken_keys = {_key(name.split()) for name in taken or ()}
    for needed in dict.fromkeys((min(2, len(members)), 1)):
        scored = [
            (round(share_in * (share_in - _share(key, outside)), 6), len(key), key)
            for key, count in held.items()
            if count >= needed and key not in taken_keys
            for share_in in [count / len(members)]
        ]
        if scored and (best := max(scored))[0] > 0:
            chosen = _more_specific(best, scored)
            forms = Counter(p[chosen] for p in inside if chosen in p)
            return _as_name(forms.most_common(1)[0][0])
    return ""


def _share(key: tuple[str, ...], texts: list[set[tuple[str, ...]]]) -> float:
    return sum(key in p for p in texts) / max(len(texts), 1)


SPECIFIC = 0.8  # a longer phrase holding the best one names the theme when it scores this share


def _more_specific(
    best: tuple[float, int, tuple[str, ...]], scored: list[tuple[float, int, tuple[str, ...]]]
) -> tuple[str, ...]:
    """The best phrase, or a longer one holding it that scores nearly as well: "speculative
    decoding" before "decoding", when most of the theme says it and the others do not."""
    score, _, key = best
    longer = [
        s for s in scored if s[1] > len(key) and s[0] >= SPECIFIC * score and _holds(s[2], key)
    ]
    return max(longer)[2] if longer else key


def _holds(longer: tuple[str, ...], key: tuple[str, ...]) -> bool:
    """Whether the words of `key` stand together, in order, in `longer`."""
    n = len(key)
    return any(longer[i : i + n] == key for i in range(len(longer) - n + 1))


def _as_name(phrase: str) -> str:
    """A phrase as a heading: its first letter capitalised unless the word is a coined one
    (vLLM, KV)."""
    first = phrase.split()[0]
    coined = any(c.isupper() for c in first[1:]) or first[:1].isupper()
    return phrase if coined else phrase[:1].upper() + phrase[1:]


def contains_phrase(name: str, texts: list[str]) -> bool:
    """Whether the name, as its words are matched, occurs in one of the texts (an acronym the
    text defines read as either of its names)."""
    wanted = _key(split_words(name, WordStyle.ASCII_JOINED))
    if not wanted:
        return False
    variants = (fold_acronyms(text, spelled) for text in texts for spelled in (False, True))
    return any(_holds(_key(split_words(text, WordStyle.ASCII_JOINED)), wanted) for text in variants)
