"""Dense retrieval over stored chunk embeddings: one float32 matrix per process, brute force."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np

from frontier.llm.embeddings import blob_to_vector


@dataclass(frozen=True)
class ChunkMatrix:
    """Unit vectors of every embedded chunk, with the chunk and paper each row belongs to."""

    chunk_ids: np.ndarray
    paper_ids: list[str]
    vectors: np.ndarray

    def __len__(self) -> int:
        return len(self.chunk_ids)


_LOADED: dict[tuple[str, str], tuple[tuple[int, int], ChunkMatrix]] = {}


def _db_key(conn: sqlite3.Connection) -> str:
    row = conn.execute("PRAGMA database_list").fetchone()
    return str(row[2]) or f"memory:{id(conn)}"


def chunk_matrix(conn: sqlite3.Connection, model: str) -> ChunkMatrix:
    """The chunk vectors of `model`, reloaded only when chunks were embedded since last time."""
    stamp = conn.execute(
        "SELECT count(*), coalesce(max(chunk_id), 0) FROM chunk_embeddings WHERE model = ?",
        (model,),
    ).fetchone()
    key = (_db_key(conn), model)
    cached = _LOADED.get(key)
    if cached and cached[0] == tuple(stamp):
        return cached[1]
    rows = conn.execute(
        "SELECT e.chunk_id, c.paper_id, e.vector FROM chunk_embeddings e "
        "JOIN chunks c ON c.id = e.chunk_id WHERE e.model = ? ORDER BY e.chunk_id",
        (model,),
    ).fetchall()
    dim = len(blob_to_vector(rows[0][2])) if rows else 0
    vectors = np.empty((len(rows), dim), dtype=np.float32)
    for i, row in enumerate(rows):
        vectors[i] = blob_to_vector(row[2])
    matrix = ChunkMatrix(
        np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows)),
        [row[1] for row in rows],
        vectors,
    )
    _LOADED[key] = (tuple(stamp), matrix)
    return matrix


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
