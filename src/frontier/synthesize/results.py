"""Results across papers: each claim with keys for sorting, grouping and filtering (its metric
family, its value parsed, the canonical names of its baseline, model and hardware), while the
value as printed stays what is shown. A key code cannot read is None, and a None key never
matches a filter nor joins another claim's group.

A claim reports on its paper's own system: the name the paper gives it (`system_names`) that the
quote says, else its first such name, else the paper's short title. Two verified results of
different papers on the same system, measure, canonical baseline and setting (model and
hardware, at least one known) disagree when they state opposite directions or their values are
RESULT_FACTOR or more apart, compared as `conflicts` compares claims."""

from __future__ import annotations

import hashlib
import json
import math
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from frontier.config import Settings
from frontier.curate.claims import system_names
from frontier.store.kb import load_entities, snapshot
from frontier.store.results import (
    NAME_ROLES,
    ResultClaim,
    ResultKeys,
    claims_without_keys,
    keyed_claims,
    keys_current,
    result_claims,
    save_result_keys,
    topic_papers,
)
from frontier.synthesize.measurement import FAMILY_NAMES, named_family
from frontier.synthesize.names import NameTable, name_table
from frontier.text import NumberShape, find_numbers, number_matches, number_pattern

# a unit that says by itself what was measured, when the metric does not
_UNIT_FAMILIES = {"tokens/s": "throughput", "req/s": "request-rate", "J": "energy", "$": "cost"}
_MEMORY_UNIT = re.compile(r"^[KMGT]i?B$")

_UNITS = {
    "×": ("x", "×", "times", "fold", "-fold"),
    "%": ("%", "percent", "per cent"),
    "ms": ("ms", "msec", "millisecond", "milliseconds"),
    "s": ("s", "sec", "secs", "second", "seconds"),
    "µs": ("µs", "μs", "us", "microsecond", "microseconds"),
    "min": ("min", "mins", "minute", "minutes"),
    "h": ("h", "hr", "hrs", "hour", "hours"),
    "tokens/s": ("tokens/s", "token/s", "tok/s", "tokens/sec", "tokens per second"),
    "req/s": ("req/s", "reqs/s", "requests/s", "request/s", "requests per second", "rps"),
    "$": ("$", "usd", "dollars"),
    "bit": ("bit", "bits", "-bit"),
    "J": ("j", "joule", "joules"),
}
_UNIT_OF = {alias.casefold(): unit for unit, aliases in _UNITS.items() for alias in aliases}
_NUM = number_pattern(NumberShape.GROUPED)
_RANGE = re.compile(
    rf"(?P<a>{_NUM})\s*(?P<unit>[^\d\s-]*)\s*(?:[-–—−∼~]|to)\s*(?:up to\s*)?(?P<b>{_NUM})",
    re.IGNORECASE,
)
_UPPER = re.compile(
    r"^(?:up to|at most|as much as|as high as|less than|fewer than|under|below|<|≤)", re.I
)
_LOWER = re.compile(r"^(?:more than|over|at least|above|greater than|exceeding|>|≥)", re.I)
_UNIT_AFTER = re.compile(r"^\s*(?P<unit>×|%|[^\W\d_][\w/.-]*(?:\s+per\s+second)?)")
# results of one system against one baseline in one setting: closer than this is noise
RESULT_FACTOR = 1.5
MAX_DISAGREEING = 5  # other papers' results named beside one that it disagrees with
SHORT_TITLE = 40


@dataclass(frozen=True)
class ParsedValue:
    """A value read as numbers: `low` and `high` bound it (None where the text gives no bound;
    both the same for a single number); `start` and `end` keep the order of "from A to B"."""

    low: float | None
    high: float | None
    unit: str | None
    form: str  # exact | range | upper bound | lower bound | from-to
    start: float | None = None
    end: float | None = None

    def sort_key(self) -> tuple[float, float]:
        """Numeric order: by the lower bound, then the upper; a lone bound stands for both."""
        low = self.low if self.low is not None else self.high
        high = self.high if self.high is not None else self.low
        return (math.inf if low is None else low, math.inf if high is None else high)


def metric_family(metric: str, unit: str = "") -> str | None:
    """The family of measure a claim's metric names (or its unit shows), else None."""
    if family := named_family(metric):
        return family
    canonical = unit_name(unit)
    if canonical and _MEMORY_UNIT.match(canonical):
        return "memory"
    return _UNIT_FAMILIES.get(canonical or "")


def unit_name(unit: str) -> str | None:
    """The canonical unit: × and % stay apart, spellings of one unit meet; None when empty."""
    text = " ".join(unit.split())
    if not text:
        return None
    if _MEMORY_UNIT.match(text.upper().replace("I", "i")):
        return text.upper().replace("I", "i")
    return _UNIT_OF.get(text.casefold(), text)


def parse_value(value_text: str, unit: str = "", value: float | None = None) -> ParsedValue | None:
    """Numbers of a value as printed: "2-4×" a range, "up to 3.5×" an upper bound, "from A to
    B" both; None when the text holds no number and no stored value stands in for it."""
    text = " ".join(value_text.split())
    numbers = [_number(n) for n in find_numbers(text, NumberShape.GROUPED)]
    shown_unit = unit_name(unit) or _unit_in(text)
    if not numbers:
        if value is None or not math.isfinite(value):
            return None
        return ParsedValue(value, value, shown_unit, "exact")
    if text.casefold().startswith("from") and len(numbers) >= 2:
        first, second = numbers[:2]
        lo, hi = sorted((first, second))
        return ParsedValue(lo, hi, shown_unit, "from-to", first, second)
    if span := _RANGE.search(text):
        lo, hi = sorted((_number(span["a"]), _number(span["b"])))
        return ParsedValue(lo, hi, shown_unit, "range")
    if _UPPER.match(text):
        return ParsedValue(None, numbers[0], shown_unit, "upper bound")
    if _LOWER.match(text):
        return ParsedValue(numbers[0], None, shown_unit, "lower bound")
    return ParsedValue(numbers[0], numbers[0], shown_unit, "exact")


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _unit_in(text: str) -> str | None:
    """The unit printed after the value's last number, or a leading $."""
    if text.lstrip("~≈<>≤≥ ").startswith("$"):
        return "$"
    last = list(number_matches(text, NumberShape.GROUPED))[-1:]
    if not last:
        return None
    found = _UNIT_AFTER.match(text[last[0].end() :])
    return unit_name(found["unit"]) if found else None


@dataclass(frozen=True)
class Disagreeing:
    """Another paper's result on the same system, measure, baseline and setting that a result
    disagrees with, and why."""

    paper_id: str
    title: str
    claim_id: int
    value_text: str
    why: str


@dataclass(frozen=True)
class Result:
    """One claim in the results table: what the paper printed and the keys read from it."""

    claim: ResultClaim
    family: str | None
    value: ParsedValue | None
    baselines: tuple[str, ...]
    models: tuple[str, ...]
    hardware: tuple[str, ...]
    system: str = ""
    disagrees: tuple[Disagreeing, ...] = ()

    @property
    def baseline_key(self) -> str | None:
        return _joined(self.baselines)

    def group(self) -> tuple[str | None, str | None]:
        return (self.family, self.baseline_key)


def _joined(names: Sequence[str]) -> str | None:
    return " + ".join(names) if names else None


@dataclass(frozen=True)
class ResultFilters:
    """What `frontier results` keeps: every given filter must hold."""

    family: str | None = None
    baseline: str | None = None
    model: str | None = None
    hardware: str | None = None


def result_of(claim: ResultClaim, names: NameTable, titles: dict[str, str] | None = None) -> Result:
    """The claim with its keys; `titles` keeps the system each title names, read once a paper."""
    return Result(
        claim=claim,
        family=metric_family(claim.metric, claim.unit),
        value=parse_value(claim.value_text, claim.unit, claim.value),
        baselines=names.names_in(claim.baseline),
        models=names.names_in(claim.model_name),
        hardware=names.names_in(claim.hardware),
        system=own_system(claim, names, titles),
    )


_MODEL_NAME = re.compile(r"^(?:Llama|LLaMA|OPT|GPT|Mistral|Mixtral|Falcon|Qwen|T5|BLOOM)", re.I)


@lru_cache(maxsize=65536)
def _paper_systems(title: str, abstract: str) -> tuple[str, ...]:
    return tuple(system_names(title, abstract))


def short_title(title: str) -> str:
    """The title's lead before a colon, cut to SHORT_TITLE characters."""
    lead = " ".join(title.split(":", 1)[0].split())
    return lead if len(lead) <= SHORT_TITLE else lead[: SHORT_TITLE - 1].rstrip() + "…"


def own_system(claim: ResultClaim, names: NameTable, titles: dict[str, str] | None = None) -> str:
    """The system a claim reports on (see the module's docstring), canonical when known."""
    systems = _paper_systems(claim.title, claim.abstract)
    quote = claim.quote.casefold()
    said = [name for name in systems if name.casefold() in quote]
    chosen = (said or list(systems))[:1]
    if not chosen:
        titles = {} if titles is None else titles
        if claim.title not in titles:
            titles[claim.title] = known_in_title(claim.title, names) or short_title(claim.title)
        return titles[claim.title]
    return names.canonical(chosen[0]) or chosen[0]


def known_in_title(title: str, names: NameTable) -> str | None:
    """A system of the names table the title names ('... with Sarathi-Serve'), when the title
    coins no name of its own."""
    words = re.findall(r"[\w.+-]+", title)
    for size in (2, 1):
        for start in range(len(words) - size + 1):
            known = names.canonical(" ".join(words[start : start + size]))
            if known and not _MODEL_NAME.match(known):
                return known
    return None


def _setting_key(result: Result) -> tuple[Any, ...] | None:
    """What two results must share to be compared; None when a part is unknown."""
    unit = result.value.unit if result.value else None
    if not (result.family and result.baseline_key and unit and result.claim.verified):
        return None
    if not (result.models or result.hardware):
        return None  # an unstated setting: nothing says the two were measured alike
    return (result.system, result.family, result.baseline_key, unit, result.models, result.hardware)


def _disagreeing(other: Result, why: str) -> Disagreeing:
    claim = other.claim
    return Disagreeing(claim.paper_id, claim.title, claim.id, claim.value_text, why)


def with_disagreements(results: Sequence[Result], shown: set[int] | None = None) -> list[Result]:
    """The results, each with at most MAX_DISAGREEING results of other papers it disagrees
    with (of those `shown`, by claim id, when given: the others are not looked at)."""
    by_setting: dict[tuple[Any, ...], list[Result]] = {}
    for result in results:
        if (key := _setting_key(result)) is not None:
            by_setting.setdefault(key, []).append(result)
    found: dict[int, tuple[Disagreeing, ...]] = {}
    for group in by_setting.values():
        if len(group) < 2:
            continue
        ordered = _Ordered(group)
        for result in group:
            others = (
                ordered.disagreeing(result) if shown is None or result.claim.id in shown else ()
            )
            if others:
                found[result.claim.id] = others
    return [replace(r, disagrees=found[r.claim.id]) if r.claim.id in found else r for r in results]


class _Ordered:
    """One setting's results sorted by their bounds, so the ones a result disagrees with are
    read from the ends instead of pairing every two (a KB of many papers holds large groups)."""

    def __init__(self, group: list[Result]) -> None:
        self.by_low = sorted(
            (r for r in group if _low(r) is not None), key=lambda r: -(_low(r) or 0.0)
        )
        self.by_high = sorted(
            (r for r in group if _high(r) is not None), key=lambda r: _high(r) or 0.0
        )
        self.directed = [r for r in group if r.claim.direction]

    def disagreeing(self, result: Result) -> tuple[Disagreeing, ...]:
        picked: dict[int, Disagreeing] = {}
        for other, why in self._candidates(result):
            if len(picked) == MAX_DISAGREEING:
                break
            if other.claim.paper_id != result.claim.paper_id and other.claim.id not in picked:
                picked[other.claim.id] = _disagreeing(other, why)
        return tuple(picked.values())

    def _candidates(self, result: Result) -> Iterator[tuple[Result, str]]:
        """Opposite directions first, then values RESULT_FACTOR or more above, then below."""
        direction = result.claim.direction
        if direction:
            for other in self.directed:
                if other.claim.direction != direction:
                    yield other, f"opposite directions: {direction} vs {other.claim.direction}"
        high, low = _high(result), _low(result)
        if high is not None and high > 0:
            for other in self.by_low:  # largest lower bound first
                apart = (_low(other) or 0.0) / high
                if apart < RESULT_FACTOR:
                    break
                yield other, f"values {apart:.1f}x apart"
        if low is not None:
            for other in self.by_high:  # smallest upper bound first
                other_high = _high(other) or 0.0
                if other_high <= 0:
                    continue
                apart = low / other_high
                if apart < RESULT_FACTOR:
                    break
                yield other, f"values {apart:.1f}x apart"


def _low(result: Result) -> float | None:
    return result.value.low if result.value else None


def _high(result: Result) -> float | None:
    return result.value.high if result.value else None


def _names_match(names: tuple[str, ...], wanted: str | None, table: NameTable) -> bool:
    """True when no name is asked for, or the claim names it (resolved, any case)."""
    if wanted is None:
        return True
    target = (table.canonical(wanted) or wanted).casefold()
    return any(name.casefold() == target for name in names)


def kept(result: Result, filters: ResultFilters, table: NameTable) -> bool:
    return (
        (filters.family is None or result.family == filters.family)
        and _names_match(result.baselines, filters.baseline, table)
        and _names_match(result.models, filters.model, table)
        and _names_match(result.hardware, filters.hardware, table)
    )


def _order(result: Result) -> tuple[Any, ...]:
    """Groups by family (in FAMILIES' order) and baseline, unknown keys last; inside a group
    by unit (× and % never interleave), then numerically, unparsed values last."""
    family = FAMILY_NAMES.index(result.family) if result.family else len(FAMILY_NAMES)
    baseline = result.baseline_key
    unit = result.value.unit if result.value and result.value.unit else None
    number = result.value.sort_key() if result.value else (math.inf, math.inf)
    return (
        family,
        baseline is None,
        (baseline or "").casefold(),
        unit is None,
        unit or "",
        number,
        result.claim.paper_id,
        result.claim.id,
    )


@dataclass(frozen=True)
class KBResults:
    """Every claim of a KB with its keys, and the names table they were read by: what each
    table and graph picks from."""

    results: list[Result]
    table: NameTable


def results_of(claims: Iterable[ResultClaim], table: NameTable) -> KBResults:
    titles: dict[str, str] = {}  # each title's system, read once a paper
    return KBResults([result_of(claim, table, titles) for claim in claims], table)


def picked(
    every: KBResults, filters: ResultFilters = ResultFilters(), papers: set[str] | None = None
) -> list[Result]:
    """The results the filters keep (of `papers` when given), grouped by family and baseline
    and sorted by value; disagreements are found among all of them."""
    kept_ids = {
        r.claim.id
        for r in every.results
        if (papers is None or r.claim.paper_id in papers) and kept(r, filters, every.table)
    }
    found = with_disagreements(every.results, kept_ids)
    return sorted((r for r in found if r.claim.id in kept_ids), key=_order)


def results_table(
    claims: Iterable[ResultClaim],
    table: NameTable,
    filters: ResultFilters = ResultFilters(),
    papers: set[str] | None = None,
) -> list[Result]:
    """The table of these claims (see `picked`)."""
    return picked(results_of(claims, table), filters, papers)


def store_names(conn: sqlite3.Connection, settings: Settings) -> NameTable:
    """The names table of a KB: the built-in one, its tracked entities, the user's aliases."""
    return name_table(settings.results.aliases, load_entities(conn, settings))


def kb_results(
    conn: sqlite3.Connection, settings: Settings, include_unverified: bool = False
) -> KBResults:
    """Every (verified, unless asked) claim of the KB with its keys."""
    with snapshot(conn):
        table = store_names(conn, settings)
        claims = result_claims(conn, None, include_unverified)
    return results_of(claims, table)


def stored_results(
    conn: sqlite3.Connection,
    settings: Settings,
    filters: ResultFilters = ResultFilters(),
    topic: str | None = None,
    include_unverified: bool = False,
) -> list[Result]:
    """The results table of the KB's claims; a result of the topic's papers is marked where it
    disagrees with any paper's. Read through the stored keys when they are current, else
    each claim's keys are read here."""
    with snapshot(conn):
        keys = current_keys(conn, settings)
    if keys is not None:
        return keyed_results(conn, keys, filters, topic, include_unverified)
    with snapshot(conn):
        table = store_names(conn, settings)
        claims = result_claims(conn, None, include_unverified)
        of_topic = None if topic is None else topic_papers(conn, topic)
    return results_table(claims, table, filters, of_topic)


# the reading of a claim's keys: a change to it (or to the names table) reads them all again
RESULT_KEYS_VERSION = "result-keys-1"
KEYS_BATCH = 5000  # claims whose keys are read and stored in one transaction


def keys_version(table: NameTable) -> str:
    """What stored keys were read by: this code's version and the names table."""
    names = json.dumps([sorted(table.aliases.items()), sorted(table.families.items())])
    return f"{RESULT_KEYS_VERSION}:{hashlib.sha256(names.encode()).hexdigest()[:16]}"


def result_keys(result: Result, version: str) -> ResultKeys:
    value = result.value
    return ResultKeys(
        claim_id=result.claim.id,
        family=result.family,
        low=value.low if value else None,
        high=value.high if value else None,
        unit=value.unit if value else None,
        form=value.form if value else None,
        start=value.start if value else None,
        finish=value.end if value else None,
        baselines=result.baselines,
        models=result.models,
        hardware=result.hardware,
        system=result.system,
        version=version,
    )


def keyed_result(claim: ResultClaim, keys: ResultKeys) -> Result:
    """A result from its claim and its stored keys."""
    value = None
    if keys.form is not None:
        value = ParsedValue(keys.low, keys.high, keys.unit, keys.form, keys.start, keys.finish)
    return Result(
        claim=claim,
        family=keys.family,
        value=value,
        baselines=keys.baselines,
        models=keys.models,
        hardware=keys.hardware,
        system=keys.system,
    )


def refresh_result_keys(conn: sqlite3.Connection, settings: Settings) -> int:
    """Read and store the keys of every claim that has none of the current version (a new
    claim, a changed one, or all of them after the names table changed); how many."""
    table = store_names(conn, settings)
    version = keys_version(table)
    titles: dict[str, str] = {}
    done = 0
    while batch := claims_without_keys(conn, version, KEYS_BATCH):
        save_result_keys(conn, [result_keys(result_of(c, table, titles), version) for c in batch])
        done += len(batch)
    return done


@dataclass(frozen=True)
class StoredKeys:
    """The names table of a KB whose every claim has stored keys, and their version."""

    table: NameTable
    version: str


def current_keys(conn: sqlite3.Connection, settings: Settings) -> StoredKeys | None:
    """The KB's stored keys, or None when some claim has none of the current version."""
    table = store_names(conn, settings)
    version = keys_version(table)
    return StoredKeys(table, version) if keys_current(conn, version) else None


def keyed_results(
    conn: sqlite3.Connection,
    keys: StoredKeys,
    filters: ResultFilters = ResultFilters(),
    topic: str | None = None,
    include_unverified: bool = False,
) -> list[Result]:
    """The results table read through the stored keys, only the claims the filters keep: a
    result disagrees only with results of its own setting, which the same filters keep."""
    wanted = {
        role: keys.table.canonical(name) or name
        for role, name in zip(
            NAME_ROLES, (filters.baseline, filters.model, filters.hardware), strict=True
        )
        if name is not None
    }
    with snapshot(conn):
        rows = keyed_claims(conn, keys.version, filters.family, wanted, include_unverified)
        of_topic = None if topic is None else topic_papers(conn, topic)
    results = [keyed_result(claim, stored) for claim, stored in rows]
    shown = {r.claim.id for r in results if of_topic is None or r.claim.paper_id in of_topic}
    found = with_disagreements(results, shown)
    return sorted((r for r in found if r.claim.id in shown), key=_order)


RESULT_COLUMNS = (
    "family",
    "baseline_canonical",
    "paper",
    "title",
    "metric",
    "value_text",
    "value_low",
    "value_high",
    "value_unit",
    "value_form",
    "value_from",
    "value_to",
    "direction",
    "baseline",
    "model",
    "model_canonical",
    "hardware",
    "hardware_canonical",
    "page",
    "quote",
    "verified",
    "claim",
    "date",
    "system",
    "disagrees_with",
)


def result_record(result: Result) -> dict[str, Any]:
    """A result as plain data, the same keys (RESULT_COLUMNS) for JSON and CSV."""
    claim, value = result.claim, result.value
    record = {
        "family": result.family,
        "baseline_canonical": result.baseline_key,
        "paper": claim.paper_id,
        "title": claim.title,
        "metric": claim.metric,
        "value_text": claim.value_text,
        "value_low": value.low if value else None,
        "value_high": value.high if value else None,
        "value_unit": value.unit if value else None,
        "value_form": value.form if value else None,
        "value_from": value.start if value else None,
        "value_to": value.end if value else None,
        "direction": claim.direction,
        "baseline": claim.baseline,
        "model": claim.model_name,
        "model_canonical": _joined(result.models),
        "hardware": claim.hardware,
        "hardware_canonical": _joined(result.hardware),
        "page": claim.page,
        "quote": claim.quote,
        "verified": claim.verified,
        "claim": claim.id,
        "date": claim.date or None,
        "system": result.system,
        "disagrees_with": [disagreeing_record(d) for d in result.disagrees],
    }
    return {column: record[column] for column in RESULT_COLUMNS}


def disagreeing_record(other: Disagreeing) -> dict[str, Any]:
    return {
        "paper": other.paper_id,
        "title": other.title,
        "claim": other.claim_id,
        "value_text": other.value_text,
        "why": other.why,
    }
