"""Processes frontier starts die with it: the kernel kills each one when its parent dies, even
by SIGKILL, so no extraction worker or model server outlives the command that started it."""

from __future__ import annotations

import ctypes
import os
import signal

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None) -> None:
    """Ask the kernel for SIGKILL when the parent dies (Linux; elsewhere a no-op). With `parent`,
    exit at once if it is already gone: it may have died before the request was made.

    The kernel watches the parent *thread*: start children from a thread that lives as long
    as they should. SIGKILL, not SIGTERM: a graceful shutdown would first finish work for a
    parent that is gone."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if parent is not None and os.getppid() != parent:
        os._exit(1)
