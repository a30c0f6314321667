"""The shape of each synthetic paper (id, date, topic, cluster, pages, chunks) and its full text:
pages, sections and chunks, with the sentences of its claims placed on their pages."""

from __future__ import annotations

import datetime as dt
import sqlite3
from dataclasses import dataclass

import numpy as np
from synthetic_text import WordSource

from frontier.config import Settings
from frontier.model import Claim

FIRST_DAY, LAST_DAY = dt.date(2019, 1, 1), dt.date(2025, 12, 31)
SECTIONS = ("introduction", "background", "method", "evaluation", "conclusion")
# share of papers per topic, in config order, then out of the field (one topic near 10%)
TOPIC_SHARES = (0.45, 0.30, 0.12, 0.10, 0.03)
WORDS_PER_TOKEN = 0.75


@dataclass(frozen=True)
class PaperPlan:
    id: str
    date: str
    topic: str  # '' when out of the field
    cluster: int
    chunks: int
    pages: int
    title_words: int
    abstract_words: int
    authors: tuple[int, ...]
    jitter: float  # a uniform draw for small choices (stage, score)


def plan_papers(
    settings: Settings, papers: int, chunks: int, clusters_per_topic: int, seed: int
) -> list[PaperPlan]:
    """Papers dated over seven years with the field's growth, oldest first, `chunks` in all."""
    rng = np.random.default_rng(seed)
    span = (LAST_DAY - FIRST_DAY).days
    # the field grows: density doubles every ~14 months
    days = np.sort(np.log1p(rng.random(papers) * (2 ** (span / 420) - 1)) / np.log(2) * 420)
    counts = _chunk_counts(rng, papers, chunks)
    slugs = [t.slug for t in settings.topics] + [""]
    shares = np.array([*TOPIC_SHARES[: len(slugs) - 1], TOPIC_SHARES[-1]])
    topics = rng.choice(len(slugs), size=papers, p=shares / shares.sum())
    per_month: dict[str, int] = {}
    plans = []
    for i in range(papers):
        date = FIRST_DAY + dt.timedelta(days=int(days[i]))
        month = date.strftime("%y%m")
        per_month[month] = per_month.get(month, 0) + 1
        topic = int(topics[i])
        plans.append(
            PaperPlan(
                id=f"{month}.{per_month[month]:05d}",
                date=date.isoformat(),
                topic=slugs[topic],
                cluster=topic * clusters_per_topic + int(rng.integers(clusters_per_topic)),
                chunks=int(counts[i]),
                pages=max(1, int(np.ceil(counts[i] * rng.uniform(0.7, 1.0)))),
                title_words=int(rng.integers(7, 15)),
                abstract_words=int(rng.integers(140, 260)),
                authors=tuple(int(a) for a in rng.integers(0, 20_000, size=rng.integers(2, 9))),
                jitter=float(rng.random()),
            )
        )
    return plans


def _chunk_counts(rng: np.random.Generator, papers: int, chunks: int) -> np.ndarray:
    mean = chunks / papers
    counts = np.clip(1 + rng.poisson(max(mean - 1, 0), size=papers), 1, None)
    # nudge random papers until the total is exact
    while (diff := chunks - int(counts.sum())) != 0:
        picks = rng.integers(0, papers, size=abs(diff))
        if diff > 0:
            np.add.at(counts, picks, 1)
        else:
            counts[picks] = np.maximum(counts[picks] - 1, 1)
    return counts


# (metric, unit, value range, sentence): one family and unit each, values less than 3x apart
# and stated the same way, so the KB holds no disagreement between papers
_CLAIMS = (
    ("speedup", "×", (1.6, 4.0), "Our method achieves a {v}× speedup over the baseline"),
    ("throughput", " tokens/s", (1500, 4000), "Throughput improves to {v} tokens/s"),
    ("latency", " ms", (40, 110), "It reduces time per output token to {v} ms"),
    ("memory", " GB", (20, 55), "The KV cache memory is reduced to {v} GB"),
)
_SETTINGS = (("7B", "A100", "fp16"), ("13B", "A100", "fp16"), ("70B", "H100", "fp8"))


def claims_for(plan: PaperPlan, rng: np.random.Generator) -> list[Claim]:
    """0-6 claims, about 80% verified, each quoting a sentence placed on its page."""
    claims = []
    for _ in range(int(rng.integers(0, 7))):
        metric, unit, (low, high), template = _CLAIMS[int(rng.integers(len(_CLAIMS)))]
        size, hardware, precision = _SETTINGS[int(rng.integers(len(_SETTINGS)))]
        value = round(float(rng.uniform(low, high)), 1 if high < 100 else 0)
        text = f"{value:g}"
        quote = f"{template.format(v=text)} for {size} models on {hardware} in {precision}."
        verified = bool(rng.random() < 0.8)
        claims.append(
            Claim(
                metric=metric,
                value=value,
                value_text=text,
                unit=unit.strip(),
                direction="lower" if metric in ("latency", "memory") else "higher",
                baseline="the baseline" if metric == "speedup" else "",
                model_name=f"Llama-2-{size}",
                hardware=hardware,
                condition=precision,
                page=1 + int(rng.integers(plan.pages)),
                quote=quote,
                verified=verified,
                verify_note="" if verified else "value not found on the page",
                model="SmolLM2-135M-Instruct",
                prompt_version="claim",
            )
        )
    return claims


def write_fulltext(
    conn: sqlite3.Connection, plan: PaperPlan, words: WordSource, claims: list[Claim]
) -> tuple[list[tuple[int | None, str, str]], list[tuple[int, str]]]:
    """Insert pages, sections and chunks; returns (page, section, text) of the chunks in order
    and (page, text) of the pages, as curate reads them."""
    quotes: dict[int, list[str]] = {}
    for claim in claims:
        quotes.setdefault(claim.page or 1, []).append(claim.quote)
    chunks: list[tuple[int | None, str, str]] = []
    for ord_ in range(plan.chunks):
        page = 1 + ord_ * plan.pages // plan.chunks
        section = SECTIONS[ord_ * len(SECTIONS) // plan.chunks]
        tokens = int(words.rng.integers(300, 501))
        text = words.sentence_text(int(tokens * WORDS_PER_TOKEN), plan.cluster)
        if page in quotes:
            text = " ".join([*quotes.pop(page), text])
        chunks.append((page, section, text))
    on_page: dict[int, list[str]] = {}
    for page, _, text in chunks:
        on_page.setdefault(page or 1, []).append(text)
    pages = [(n, "\n".join(on_page.get(n, []))) for n in range(1, plan.pages + 1)]
    conn.executemany("INSERT INTO pages VALUES (?, ?, ?)", [(plan.id, n, t) for n, t in pages])
    starts = {}
    for page, section, _ in chunks:
        starts.setdefault(section, page)
    conn.executemany(
        "INSERT INTO sections VALUES (?, ?, ?, ?, ?, ?)",
        [
            (plan.id, i, str(i + 1), name.capitalize(), name, page)
            for i, (name, page) in enumerate(starts.items())
        ],
    )
    conn.executemany(
        "INSERT INTO chunks (paper_id, ord, page, section, text, n_tokens) VALUES (?, ?, ?, ?, ?, ?)",
        [
            (plan.id, i, page, section, text, int(len(text.split()) / WORDS_PER_TOKEN))
            for i, (page, section, text) in enumerate(chunks)
        ],
    )
    return chunks, pages
