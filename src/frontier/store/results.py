"""Claims as the results table reads them: each with its paper's title, date and abstract,
optionally of one topic."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Any

from frontier.store.db import first_column, transaction


@dataclass(frozen=True)
class ResultClaim:
    """One stored claim with the title of its paper; fields as curation stored them."""

    id: int
    paper_id: str
    title: str
    metric: str
    value: float | None
    value_text: str
    unit: str
    direction: str
    baseline: str
    model_name: str
    hardware: str
    page: int | None
    quote: str
    _: KW_ONLY  # _result_claim passes the columns it converts by name
    verified: bool
    headline: bool
    date: str = ""  # the paper's, YYYY-MM-DD or shorter; "" when unknown
    abstract: str = ""


_COLUMNS = (
    "c.id, c.paper_id, p.title, c.metric, c.value, c.value_text, c.unit, c.direction, "
    "c.baseline, c.model_name, c.hardware, c.page, c.quote, c.verified, c.headline, "
    "substr(COALESCE(p.published, p.updated, ''), 1, 10), COALESCE(p.abstract, '')"
)


def result_claims(
    conn: sqlite3.Connection, topic: str | None = None, include_unverified: bool = False
) -> list[ResultClaim]:
    """Claims by paper and order of storing; verified ones only unless `include_unverified`;
    of papers triaged into `topic` when given."""
    conditions, params = [], []
    if not include_unverified:
        conditions.append("c.verified = 1")
    if topic is not None:
        conditions.append(
            "EXISTS (SELECT 1 FROM triage t WHERE t.paper_id = c.paper_id AND t.topic = ?)"
        )
        params.append(topic)
    where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM claims c JOIN papers p ON p.id = c.paper_id{where} "
        "ORDER BY c.paper_id, c.id",
        params,
    )
    return [_result_claim(row) for row in rows]


def _result_claim(row: Sequence[Any]) -> ResultClaim:
    *head, verified, headline, date, abstract = tuple(row)
    return ResultClaim(
        *head, verified=bool(verified), headline=bool(headline), date=date, abstract=abstract
    )


def topic_papers(conn: sqlite3.Connection, topic: str) -> set[str]:
    """The ids of the papers triaged into `topic`."""
    rows = conn.execute("SELECT DISTINCT paper_id FROM triage WHERE topic = ?", (topic,))
    return {row[0] for row in rows}


@dataclass(frozen=True)
class ResultKeys:
    """A claim's stored keys (see `frontier.synthesize.results`): what the results table
    sorts, groups and filters it by, and the `version` of what read them."""

    claim_id: int
    family: str | None
    low: float | None
    high: float | None
    unit: str | None
    form: str | None
    start: float | None
    finish: float | None
    _: KW_ONLY  # _keys passes the columns it converts by name
    baselines: tuple[str, ...]
    models: tuple[str, ...]
    hardware: tuple[str, ...]
    system: str
    version: str


NAME_ROLES = ("baseline", "model", "hardware")
_NAMES_JOIN = "\x1f"  # no name holds it
_CLAIM_WIDTH = 17  # the columns of _COLUMNS
_KEY_COLUMNS = (
    "k.claim_id, k.family, k.low, k.high, k.unit, k.form, k.start, k.finish, k.baselines, "
    "k.models, k.hardware, k.system, k.version"
)


def keys_current(conn: sqlite3.Connection, version: str) -> bool:
    """Whether every claim has keys of this version."""
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM claims c WHERE NOT EXISTS "
        "(SELECT 1 FROM result_keys k WHERE k.claim_id = c.id AND k.version = ?))",
        (version,),
    ).fetchone()
    return not row[0]


def claims_without_keys(
    conn: sqlite3.Connection, version: str, limit: int | None = None
) -> list[ResultClaim]:
    """Claims (verified or not) with no keys of this version, by id."""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM claims c JOIN papers p ON p.id = c.paper_id "
        "WHERE NOT EXISTS (SELECT 1 FROM result_keys k WHERE k.claim_id = c.id AND k.version = ?) "
        "ORDER BY c.id LIMIT ?",
        (version, -1 if limit is None else limit),
    )
    return [_result_claim(row) for row in rows]


def save_result_keys(conn: sqlite3.Connection, keys: Sequence[ResultKeys]) -> None:
    """Replace these claims' keys and canonical names, in one transaction."""
    ids = [(k.claim_id,) for k in keys]
    names = [
        (role, name, k.claim_id)
        for k in keys
        for role, found in zip(NAME_ROLES, (k.baselines, k.models, k.hardware), strict=True)
        for name in dict.fromkeys(found)
    ]
    with transaction(conn):
        conn.executemany("DELETE FROM result_names WHERE claim_id = ?", ids)
        conn.executemany(
            "INSERT OR REPLACE INTO result_keys VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [_key_row(k) for k in keys],
        )
        conn.executemany("INSERT OR IGNORE INTO result_names VALUES (?, ?, ?)", names)


def _key_row(keys: ResultKeys) -> tuple[Any, ...]:
    return (
        keys.claim_id,
        keys.family,
        keys.low,
        keys.high,
        keys.unit,
        keys.form,
        keys.start,
        keys.finish,
        _NAMES_JOIN.join(keys.baselines),
        _NAMES_JOIN.join(keys.models),
        _NAMES_JOIN.join(keys.hardware),
        keys.system,
        keys.version,
    )


def keyed_claims(
    conn: sqlite3.Connection,
    version: str,
    family: str | None = None,
    names: Mapping[str, str] | None = None,
    include_unverified: bool = False,
) -> list[tuple[ResultClaim, ResultKeys]]:
    """Claims with keys of this version in the family and naming each of `names` (role ->
    canonical name, any case), with their keys: read through the names' index."""
    conditions, params = ["k.version = ?"], [version]
    if not include_unverified:
        conditions.append("c.verified = 1")
    if family is not None:
        conditions.append("k.family = ?")
        params.append(family)
    for role, name in (names or {}).items():
        conditions.append(
            "k.claim_id IN (SELECT claim_id FROM result_names WHERE role = ? AND name = ?)"
        )
        params += [role, name]
    rows = conn.execute(
        f"SELECT {_COLUMNS}, {_KEY_COLUMNS} FROM result_keys k "
        "JOIN claims c ON c.id = k.claim_id JOIN papers p ON p.id = c.paper_id "
        f"WHERE {' AND '.join(conditions)} ORDER BY c.paper_id, c.id",
        params,
    )
    return [(_result_claim(row[:_CLAIM_WIDTH]), _keys(row[_CLAIM_WIDTH:])) for row in rows]


def _keys(row: Sequence[Any]) -> ResultKeys:
    *head, baselines, models, hardware, system, version = tuple(row)
    return ResultKeys(
        *head,
        baselines=_names(baselines),
        models=_names(models),
        hardware=_names(hardware),
        system=system,
        version=version,
    )


@functools.lru_cache(maxsize=4096)
def _names(joined: str) -> tuple[str, ...]:
    """Stored names as a tuple (a KB names the same few thousand times)."""
    return tuple(joined.split(_NAMES_JOIN)) if joined else ()


def canonical_names(conn: sqlite3.Connection, role: str) -> list[str]:
    """The canonical names of one role that verified claims name, by their stored keys."""
    return first_column(
        conn,
        "SELECT DISTINCT n.name FROM result_names n JOIN claims c ON c.id = n.claim_id "
        "WHERE n.role = ? AND c.verified = 1",
        (role,),
    )


def verified_claim_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM claims WHERE verified = 1").fetchone()[0])
