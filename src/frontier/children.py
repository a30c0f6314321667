"""Processes frontier starts die with it: the kernel kills each one when its parent dies, even
by SIGKILL, so no extraction worker or model server outlives the command that started it."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time

_PR_SET_PDEATHSIG = 1
_QUIET_SCANS = 10  # scans 0.2 s apart that find nothing before the reaper believes it is done


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


def start_reaper(variable: str, tag: str) -> subprocess.Popen[bytes]:
    """A process that waits for this one to end, however it ends, then kills every process
    started with `variable=tag` in its environment: for programs whose helpers outlive the
    children the kernel ends (a local Ray's agents are children of its raylet). Closing its
    stdin ends the wait early."""
    env = {key: value for key, value in os.environ.items() if key != variable}
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from frontier.children import reap; reap(*sys.argv[1:])",
            variable,
            tag,
        ],
        stdin=subprocess.PIPE,
        env=env,
    )


def reap(variable: str, tag: str) -> None:
    """Wait for stdin to close, then kill the tagged processes until none is left for a while
    (some may still be starting)."""
    sys.stdin.buffer.read()
    marker = f"{variable}={tag}".encode()
    quiet_scans = 0
    while quiet_scans < _QUIET_SCANS:
        found = _tagged(marker)
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        quiet_scans = 0 if found else quiet_scans + 1
        time.sleep(0.2)


def _tagged(marker: bytes) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/environ", "rb") as environ:
                if marker in environ.read().split(b"\0"):
                    found.append(int(entry))
    return found
