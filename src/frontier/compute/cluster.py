"""Work on a Ray cluster, with Ray Data: each payload (a paper to read, a batch of chunks to
embed) is one block that a worker works on with the functions the local engine runs; results
stream back in input order to this process, which stays the one writer of the KB. A Ray
started here ends with this process, every process of it."""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import sys
import tempfile
import threading
import uuid
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from frontier.config import ClusterSettings
from frontier.errors import EXIT_INTERRUPTED, FrontierError
from frontier.llm.embeddings import load_embedder
from frontier.process.children import start_reaper

INSTALL = "pip install 'frontier[cluster]'"
_OWNER = "FRONTIER_RAY_OWNER"
INTERRUPT_GRACE_S = 30.0  # after Ctrl-C, how long Ray may take to stop before frontier exits anyway
# one thread per worker process: the engines run a worker per core already
_EMBED_THREADS = 1


class RayMissing(FrontierError):
    """`cluster.engine = "ray"` on a machine without Ray."""


def require_ray() -> None:
    try:
        import ray.data  # noqa: F401
    except ImportError:
        raise RayMissing(
            f'cluster.engine = "ray" needs Ray, which is not installed: {INSTALL}'
        ) from None


@contextlib.contextmanager
def connected(settings: ClusterSettings) -> Iterator[None]:
    """Connected to the configured cluster for the duration. With no address, a Ray started
    here: its processes share this one's fate (the kernel ends them even if it is killed)."""
    import ray

    quiet: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": logging.WARNING,
    }
    if settings.address:
        ray.init(address=settings.address, **quiet)
        try:
            yield
        finally:
            ray.shutdown()  # the cluster ends this job's tasks
        return
    with _own_ray() as temp_dir, _exit_after_interrupt(INTERRUPT_GRACE_S):
        # "local": a new Ray of our own, never the cluster another `ray start` on this machine
        # recorded as current (Ray would join that one, even when it is gone)
        ray.init(address="local", num_cpus=settings.cpus or None, _temp_dir=temp_dir, **quiet)
        try:
            yield
        finally:
            ray.shutdown()


@contextlib.contextmanager
def _exit_after_interrupt(grace_s: float) -> Iterator[None]:
    """Ctrl-C stops the command as usual, and ends the process `grace_s` later if stopping a
    Ray of its own hangs (seen now and then while a worker was busy): once this process is gone
    the reaper and the kernel end every process of that Ray. Main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupted(signum: int, frame: object) -> None:
        timer = threading.Timer(grace_s, _exit_interrupted, args=(grace_s,))
        timer.daemon = True
        timer.start()
        signal.signal(signal.SIGINT, previous)  # a second Ctrl-C acts as it did before
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, interrupted) or signal.default_int_handler
    try:
        yield
    finally:
        if signal.getsignal(signal.SIGINT) is interrupted:
            signal.signal(signal.SIGINT, previous)


def _exit_interrupted(grace_s: float) -> None:
    sys.stderr.write(
        f"interrupted: Ray did not stop within {grace_s:.0f} s of Ctrl-C; everything finished "
        "so far is stored, and its processes end with this one\n"
    )
    sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


@contextlib.contextmanager
def _own_ray() -> Iterator[str]:
    """A directory of its own for a Ray started here; every process of that Ray is tagged, and
    a reaper kills them all (tagged, or holding a file in the directory) once this process
    ends, then removes the directory: the kernel ends Ray's servers with it, but not the agents
    they start."""
    tag = uuid.uuid4().hex
    # short: Ray's socket paths under it must fit in 107 bytes
    temp_dir = tempfile.mkdtemp(prefix="frontier-ray-", dir="/tmp")
    reaper = start_reaper(_OWNER, tag, temp_dir)
    os.environ[_OWNER] = tag
    try:
        yield temp_dir
    finally:
        del os.environ[_OWNER]
        assert reaper.stdin is not None
        reaper.stdin.close()  # Ray is shut down: reap what is left now
        reaper.wait()


@contextlib.contextmanager
def session(settings: ClusterSettings) -> Iterator[None]:
    """Connected to the cluster (see `connected`) with Ray's reports kept off stdout."""
    require_ray()
    with contextlib.redirect_stdout(sys.stderr), connected(settings):
        yield


def embed_batches(batches: list[list[str]], settings: ClusterSettings) -> Iterator[bytes | None]:
    """On a cluster already connected to: the unit vectors of each batch of texts (float32
    rows, as bytes), in the order given, made by the embedder curate uses on one thread; None
    for a batch whose worker died on every try."""
    if batches:
        yield from ordered_map([pickle.dumps(texts) for texts in batches], embed_row, settings)


def ordered_map(
    payloads: list[bytes],
    work: Callable[[dict[str, Any]], dict[str, Any]],
    settings: ClusterSettings,
) -> Iterator[bytes | None]:
    """`work` over each payload on the cluster, one block (one task) each, so a payload that
    kills its worker on every try fails alone; results come back in input order, None where
    it failed. At most `max_in_flight` payloads are being worked on or waiting to be taken."""
    import ray.data

    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True  # the same order, so the same KB, as locally
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    context.max_errored_blocks = -1  # a payload that kills its worker every time fails alone
    # one operator does the work here: the share Ray Data would hold back for other operators
    # kept it to about half the CPUs (one task at a time on a 2-CPU node: 0.57x the local pool)
    context.op_resource_reservation_enabled = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    rows = [{"index": index, "payload": payload} for index, payload in enumerate(payloads)]
    resources: dict[str, Any] = {"num_cpus": settings.cpus_per_task}
    if settings.memory_per_task_mb:
        resources["memory"] = settings.memory_per_task_mb * 2**20
    with warnings.catch_warnings():
        # Ray Data has no named parameter for task retries yet; its default retries forever,
        # and a payload that kills every worker it meets must fail alone instead
        warnings.simplefilter("ignore", DeprecationWarning)
        done = ray.data.from_items(rows, override_num_blocks=len(rows)).map(
            work,
            compute=ray.data.TaskPoolStrategy(size=min(settings.max_in_flight, len(rows))),
            max_retries=settings.retries,
            **resources,
        )
    expected = 0
    for row in done.iter_rows():
        while expected < row["index"]:
            yield None
            expected += 1
        yield row["result"]
        expected += 1
    for _ in payloads[expected:]:
        yield None


def embed_row(row: dict[str, Any]) -> dict[str, Any]:
    """On a worker: one batch of texts embedded, as curate embeds them on one thread."""
    vectors = embed_texts_whole(pickle.loads(row["payload"]))
    return {"index": row["index"], "result": vectors.astype("float32").tobytes()}


def embed_texts_whole(texts: list[str]) -> np.ndarray:
    """Unit vectors of these texts, every part of each counted (the chunk vector recipe)."""
    return load_embedder(_EMBED_THREADS).embed_whole(texts)
