"""Dense retrieval over stored chunk embeddings: exact (one float32 matrix, brute force in numpy)
up to EXACT_UP_TO chunks, an HNSW index (usearch, float16) above, where a brute-force scan of the
matrix costs more than the whole search budget. The index is a file beside the database, keyed
by the embedding model; chunks embedded since it was written are added to it, and it is rebuilt
when stored vectors were deleted. Measured in benchmarks/vector_index.py and benchmarks/scale.py."""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from frontier.store.db import database_file, index_folder

# a float32 scan of 100k chunk vectors takes ~15 ms on 2 cores, of 1M ~140 ms: past the search
# budget, HNSW (ef 128, M 16, f16) answers; its recall@10 is measured by benchmarks/scale.py
EXACT_UP_TO = 100_000
_BATCH = 50_000
_OVERSAMPLE = 4  # HNSW hits fetched per wanted hit when only some papers are allowed
_EXPANSION = 1024  # recall@10 at 1M synthetic chunks: ef 128 0.82, 512 0.94, 1024 0.97 (p95 11 ms)


@dataclass(frozen=True)
class ChunkMatrix:
    """Unit vectors of every embedded chunk, with the chunk and paper each row belongs to."""

    chunk_ids: np.ndarray
    paper_ids: list[str]
    vectors: np.ndarray

    def __len__(self) -> int:
        return len(self.chunk_ids)


_LOADED: dict[tuple[str, str], tuple[Stamp, ChunkMatrix | ChunkIndex]] = {}


def _db_key(conn: sqlite3.Connection) -> str:
    return database_file(conn) or f"memory:{id(conn)}"


@dataclass(frozen=True)
class Stamp:
    """Which vectors are stored: the change counter (moves on with every insert or delete), and
    the count and highest chunk id of the model's vectors."""

    version: int
    count: int
    max_chunk_id: int


_STAMPS: dict[tuple[str, str], Stamp] = {}


def vector_stamp(conn: sqlite3.Connection, model: str) -> Stamp:
    """The model's stamp; counted again only when the change counter moved (a count scans every
    vector: most of a search's time at a million chunks)."""
    version = int(
        conn.execute(
            "SELECT value FROM change_counters WHERE name = 'chunk_embeddings'"
        ).fetchone()[0]
    )
    key = (_db_key(conn), model)
    cached = _STAMPS.get(key) if database_file(conn) else None  # ids of memory KBs are reused
    if cached and cached.version == version:
        return cached
    row = conn.execute(
        "SELECT count(*), coalesce(max(chunk_id), 0) FROM chunk_embeddings WHERE model = ?",
        (model,),
    ).fetchone()
    stamp = Stamp(version, int(row[0]), int(row[1]))
    _STAMPS[key] = stamp
    return stamp


def chunk_matrix(conn: sqlite3.Connection, model: str) -> ChunkMatrix:
    """The chunk vectors of `model`, reloaded only when chunks were embedded since last time."""
    stamp = vector_stamp(conn, model)
    key = (_db_key(conn), f"matrix:{model}")
    cached = _LOADED.get(key)
    if cached and cached[0] == stamp and isinstance(cached[1], ChunkMatrix):
        return cached[1]
    matrix = _read_matrix(conn, model, stamp.count)
    _LOADED[key] = (stamp, matrix)
    return matrix


def _read_matrix(conn: sqlite3.Connection, model: str, count: int) -> ChunkMatrix:
    """Rows streamed into a preallocated matrix: no list of a million blobs on the way."""
    cursor = conn.execute(
        "SELECT e.chunk_id, c.paper_id, e.vector FROM chunk_embeddings e "
        "JOIN chunks c ON c.id = e.chunk_id WHERE e.model = ? ORDER BY e.chunk_id",
        (model,),
    )
    ids = np.empty(count, dtype=np.int64)
    papers: list[str] = []
    vectors: np.ndarray | None = None
    n = 0
    for chunk_id, paper_id, blob in cursor:
        if n == count:  # rows embedded while reading: keep what the stamp counted
            break
        row = np.frombuffer(blob, dtype="<f4")
        if vectors is None:
            vectors = np.empty((count, len(row)), dtype=np.float32)
        ids[n], vectors[n] = chunk_id, row
        papers.append(paper_id)
        n += 1
    if vectors is None:
        vectors = np.zeros((0, 0), dtype=np.float32)
    return ChunkMatrix(ids[:n], papers, vectors[:n])


def nearest_chunks(
    matrix: ChunkMatrix, query: np.ndarray, limit: int, allowed: set[str] | None = None
) -> list[tuple[int, float]]:
    """(chunk id, cosine) of the `limit` rows closest to the unit query vector."""
    if not len(matrix):
        return []
    sims = matrix.vectors @ query.astype(np.float32)
    if allowed is not None:
        mask = np.fromiter((p in allowed for p in matrix.paper_ids), dtype=bool, count=len(matrix))
        sims = np.where(mask, sims, -np.inf)
    count = min(limit, len(sims))
    top = np.argpartition(-sims, count - 1)[:count]
    top = top[np.argsort(-sims[top], kind="stable")]
    return [(int(matrix.chunk_ids[i]), float(sims[i])) for i in top if np.isfinite(sims[i])]


def dense_search(
    conn: sqlite3.Connection,
    model: str,
    query: np.ndarray,
    limit: int,
    allowed: set[str] | None = None,
    exact_up_to: int | None = None,
) -> list[tuple[int, float]]:
    """(chunk id, cosine) of the `limit` chunks nearest the query, only of `allowed` papers
    when given: exact on small KBs, through the HNSW index on large ones."""
    stamp = vector_stamp(conn, model)
    exact_up_to = EXACT_UP_TO if exact_up_to is None else exact_up_to
    if stamp.count <= exact_up_to or not database_file(conn):
        return nearest_chunks(chunk_matrix(conn, model), query, limit, allowed)
    index = chunk_index(conn, model, stamp)
    if allowed is None:
        return index.search(query, limit)
    return _allowed_only(conn, index, query, limit, allowed, exact_up_to)


def _allowed_only(
    conn: sqlite3.Connection,
    index: ChunkIndex,
    query: np.ndarray,
    limit: int,
    allowed: set[str],
    exact_up_to: int,
) -> list[tuple[int, float]]:
    """A few papers are scanned exactly; many are filtered from an oversampled HNSW search."""
    marks = ",".join("?" * len(allowed))
    count = conn.execute(
        f"SELECT count(*) FROM chunks WHERE paper_id IN ({marks})", list(allowed)
    ).fetchone()[0]
    if count <= exact_up_to:
        rows = conn.execute(
            f"SELECT e.chunk_id, c.paper_id, e.vector FROM chunk_embeddings e JOIN chunks c "
            f"ON c.id = e.chunk_id WHERE e.model = ? AND c.paper_id IN ({marks})",
            [index.model, *allowed],
        ).fetchall()
        matrix = ChunkMatrix(
            np.array([r[0] for r in rows], dtype=np.int64),
            [r[1] for r in rows],
            np.array([np.frombuffer(r[2], dtype="<f4") for r in rows], dtype=np.float32),
        )
        return nearest_chunks(matrix, query, limit, None)
    wanted = min(len(index), limit * _OVERSAMPLE * max(1, len(index) // max(count, 1)))
    found = index.search(query, wanted)
    ids = [chunk_id for chunk_id, _ in found]
    owner = dict(
        conn.execute(
            f"SELECT id, paper_id FROM chunks WHERE id IN ({','.join('?' * len(ids))})", ids
        ).fetchall()
    )
    return [(cid, sim) for cid, sim in found if owner.get(cid) in allowed][:limit]


class ChunkIndex:
    """An HNSW index over one model's chunk vectors, keyed by chunk id, kept in a file."""

    def __init__(self, path: Path, model: str, dim: int) -> None:
        from usearch.index import Index

        self.path, self.model = path, model
        self.index = Index(
            ndim=dim, metric="cos", dtype="f16", connectivity=16, expansion_search=_EXPANSION
        )
        self.meta: dict[str, int] = {"count": 0, "max_chunk_id": 0}

    def __len__(self) -> int:
        return len(self.index)

    def search(self, query: np.ndarray, limit: int) -> list[tuple[int, float]]:
        if not len(self.index):
            return []
        found = self.index.search(query.astype(np.float32), min(limit, len(self.index)))
        # usearch reports cosine distance; retrieval speaks cosine similarity
        return [(int(k), 1.0 - float(d)) for k, d in zip(found.keys, found.distances, strict=True)]

    def add_from(self, conn: sqlite3.Connection, after: int, count: int) -> None:
        """Add the vectors of chunks with an id above `after`, a batch at a time."""
        cursor = conn.execute(
            "SELECT chunk_id, vector FROM chunk_embeddings WHERE model = ? AND chunk_id > ? "
            "ORDER BY chunk_id",
            (self.model, after),
        )
        while rows := cursor.fetchmany(_BATCH):
            self._add_rows(rows)
        self.meta["count"] = count

    def replace_changed(self, conn: sqlite3.Connection, stamp: Stamp) -> bool:
        """Remove the vectors deleted since and add those stored since, found by comparing ids;
        False (nothing done) when a vector was also made again under an id it holds."""
        stored = np.fromiter(
            (
                r[0]
                for r in conn.execute(
                    "SELECT chunk_id FROM chunk_embeddings WHERE model = ?", (self.model,)
                )
            ),
            dtype=np.int64,
        )
        held = np.asarray(self.index.keys, dtype=np.int64)
        gone, fresh = np.setdiff1d(held, stored), np.setdiff1d(stored, held)
        if "version" not in self.meta or stamp.version - self.meta["version"] != len(gone) + len(
            fresh
        ):
            return False
        if len(gone):
            self.index.remove(gone.astype(np.uint64))
        for start in range(0, len(fresh), 500):
            part = [int(i) for i in fresh[start : start + 500]]
            marks = ",".join("?" * len(part))
            self._add_rows(
                conn.execute(
                    f"SELECT chunk_id, vector FROM chunk_embeddings WHERE chunk_id IN ({marks}) "
                    "ORDER BY chunk_id",
                    part,
                ).fetchall()
            )
        self.meta["count"], self.meta["max_chunk_id"] = stamp.count, stamp.max_chunk_id
        return True

    def _add_rows(self, rows: list[tuple[int, bytes]]) -> None:
        keys = np.fromiter((r[0] for r in rows), dtype=np.uint64, count=len(rows))
        vectors = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4")
        self.index.add(keys, vectors.reshape(len(rows), -1), threads=0)
        self.meta["max_chunk_id"] = max(self.meta["max_chunk_id"], int(keys[-1]))

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temp = self.path.with_suffix(f".{os.getpid()}.tmp")
        self.index.save(str(temp))
        temp.replace(self.path)
        self.path.with_suffix(".json").write_text(json.dumps(self.meta))

    def load(self) -> bool:
        meta = self.path.with_suffix(".json")
        if not (self.path.is_file() and meta.is_file()):
            return False
        self.index.load(str(self.path))
        self.meta = json.loads(meta.read_text())
        return True


def index_path(conn: sqlite3.Connection, model: str) -> Path:
    folder = index_folder(conn)
    if folder is None:
        raise ValueError("a KB in memory keeps no index file")
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in model)
    return folder / f"chunks-{safe}.usearch"


def chunk_index(conn: sqlite3.Connection, model: str, stamp: Stamp | None = None) -> ChunkIndex:
    """The model's index, loaded once per process, brought up to date with the stored vectors."""
    stamp = stamp or vector_stamp(conn, model)
    key = (_db_key(conn), f"index:{model}")
    cached = _LOADED.get(key)
    if cached and cached[0] == stamp and isinstance(cached[1], ChunkIndex):
        return cached[1]
    dim = len(conn.execute("SELECT vector FROM chunk_embeddings LIMIT 1").fetchone()[0]) // 4
    index = cached[1] if cached and isinstance(cached[1], ChunkIndex) else None
    if index is None:
        index = ChunkIndex(index_path(conn, model), model, dim)
        index.load()
    if not _holds(index.meta, stamp):
        _refresh(conn, index, stamp, dim)
    _LOADED[key] = (stamp, index)
    return index


def _holds(meta: dict[str, int], stamp: Stamp) -> bool:
    """Whether an index holds exactly the stored vectors (one saved before the change counter
    existed is taken at its count and highest id)."""
    same = (meta["count"], meta["max_chunk_id"]) == (stamp.count, stamp.max_chunk_id)
    return same and meta.get("version", stamp.version) == stamp.version


def update_chunk_index(
    conn: sqlite3.Connection, model: str, exact_up_to: int | None = None
) -> bool:
    """Bring the index file in line with the stored vectors when the KB is large enough to use
    it (curate calls this, so a search never waits for a build); True when it was written."""
    stamp = vector_stamp(conn, model)
    if stamp.count <= (EXACT_UP_TO if exact_up_to is None else exact_up_to) or not database_file(
        conn
    ):
        return False
    meta = index_path(conn, model).with_suffix(".json")
    if meta.is_file() and _holds(json.loads(meta.read_text()), stamp):
        return False
    chunk_index(conn, model, stamp)
    return True


def _refresh(conn: sqlite3.Connection, index: ChunkIndex, stamp: Stamp, dim: int) -> None:
    """Append what was embedded since; when vectors were also deleted (a re-extracted paper),
    remove them by id; rebuild only when a vector was made again under an id the index holds."""
    newer = conn.execute(
        "SELECT count(*) FROM chunk_embeddings WHERE model = ? AND chunk_id > ?",
        (index.model, index.meta["max_chunk_id"]),
    ).fetchone()[0]
    moved = stamp.version - index.meta.get("version", stamp.version - newer)
    if index.meta["count"] + newer == stamp.count and moved == newer:
        index.add_from(conn, index.meta["max_chunk_id"], stamp.count)
    elif not index.replace_changed(conn, stamp):
        fresh = ChunkIndex(index.path, index.model, dim)
        index.index, index.meta = fresh.index, fresh.meta
        index.add_from(conn, 0, stamp.count)
    index.meta["version"] = stamp.version
    index.save()
