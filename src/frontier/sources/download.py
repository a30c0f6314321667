"""Fetch PDFs over HTTP: timeouts, retries with backoff, a size cap, a real-PDF check, a cache."""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

_RETRY_STATUS = {408, 425, 429, 500, 502, 503, 504}
_USER_AGENT = "frontier/0.1 (research knowledge base)"


class DownloadError(Exception):
    """A download that failed for good; the message names the URL and the reason."""


@dataclass
class Downloaded:
    path: Path
    content_hash: str
    size: int


def download_pdf(
    url: str,
    cache_dir: Path,
    *,
    timeout: float = 60.0,
    retries: int = 3,
    max_bytes: int = 60 * 2**20,
    backoff: float = 1.0,
) -> Downloaded:
    """Download `url` into the content-addressed cache; raise DownloadError with a reason."""
    last_error = "no attempt made"
    for attempt in range(retries + 1):
        if attempt:
            time.sleep(backoff * 2 ** (attempt - 1) * (0.5 + random.random()))
        try:
            return _fetch_once(url, cache_dir, timeout, max_bytes)
        except _Retryable as exc:
            last_error = str(exc)
    raise DownloadError(f"{url}: {last_error} (after {retries + 1} attempts)")


class _Retryable(Exception):
    pass


def _fetch_once(url: str, cache_dir: Path, timeout: float, max_bytes: int) -> Downloaded:
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = cache_dir / f".partial-{hashlib.sha1(url.encode()).hexdigest()[:12]}"
    digest = hashlib.sha256()
    size = 0
    try:
        with httpx.stream(
            "GET", url, timeout=timeout, follow_redirects=True, headers={"User-Agent": _USER_AGENT}
        ) as response:
            if response.status_code in _RETRY_STATUS:
                raise _Retryable(f"HTTP {response.status_code}")
            if response.status_code >= 400:
                raise DownloadError(f"{url}: HTTP {response.status_code}")
            with partial.open("wb") as out:
                for block in response.iter_bytes():
                    size += len(block)
                    if size > max_bytes:
                        raise DownloadError(f"{url}: larger than the {max_bytes // 2**20} MB cap")
                    digest.update(block)
                    out.write(block)
    except (httpx.TransportError, httpx.TimeoutException) as exc:
        partial.unlink(missing_ok=True)
        raise _Retryable(type(exc).__name__) from exc
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return _keep_if_pdf(url, partial, digest.hexdigest(), size, cache_dir)


def _keep_if_pdf(
    url: str, partial: Path, content_hash: str, size: int, cache_dir: Path
) -> Downloaded:
    with partial.open("rb") as handle:
        head = handle.read(1024)
    if b"%PDF" not in head:
        partial.unlink(missing_ok=True)
        raise DownloadError(f"{url}: the server did not send a PDF")
    final = cache_dir / f"{content_hash}.pdf"
    partial.replace(final)
    return Downloaded(final, content_hash, size)


def cache_file(data: bytes, cache_dir: Path) -> Downloaded:
    """Keep bytes that arrived another way (e.g. a page fetch) in the same cache."""
    content_hash = hashlib.sha256(data).hexdigest()
    cache_dir.mkdir(parents=True, exist_ok=True)
    final = cache_dir / f"{content_hash}.pdf"
    if not final.exists():
        tmp = final.with_suffix(".partial")
        tmp.write_bytes(data)
        tmp.replace(final)
    return Downloaded(final, content_hash, len(data))
