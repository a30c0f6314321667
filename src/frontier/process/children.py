"""Processes frontier starts die with it: the kernel kills each one when its parent dies, even
by SIGKILL, so no extraction worker or model server outlives the command that started it."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
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


def start_reaper(variable: str, tag: str, under: str = "") -> subprocess.Popen[bytes]:
    """A process that waits for this one to end, however it ends, then kills every process
    started with `variable=tag` in its environment, or holding a file under the directory
    `under` (then removed): for programs whose helpers outlive the children the kernel ends (a
    local Ray's agents are children of its raylet, and may rewrite their environment when they
    set their process title). Closing its stdin ends the wait early. It runs in a session of
    its own: Ctrl-C at a terminal, or a signal to this process's group, must not end it before
    it has reaped."""
    env = {key: value for key, value in os.environ.items() if key != variable}
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from frontier.process.children import reap; reap(*sys.argv[1:])",
            variable,
            tag,
            under,
        ],
        stdin=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )


def reap(variable: str, tag: str, under: str = "") -> None:
    """Wait for stdin to close, then kill the tagged processes until none is left for a while
    (some may still be starting)."""
    spared = {os.getpid(), os.getppid()}  # the parent, when it only closed stdin, lives on
    sys.stdin.buffer.read()
    marker = f"{variable}={tag}".encode()
    quiet_scans = 0
    while quiet_scans < _QUIET_SCANS:
        found = [pid for pid in _tagged(marker, under) if pid not in spared]
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        quiet_scans = 0 if found else quiet_scans + 1
        time.sleep(0.2)
    if under:
        shutil.rmtree(under, ignore_errors=True)


def _tagged(marker: bytes, under: str) -> list[int]:
    return [
        int(entry)
        for entry in os.listdir("/proc")
        if entry.isdigit()
        and (_has_marker(entry, marker) or (under and holds_file_under(entry, under)))
    ]


def _has_marker(pid: str, marker: bytes) -> bool:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/environ", "rb") as environ:
        return marker in environ.read().split(b"\0")
    return False


def holds_file_under(pid: str, directory: str) -> bool:
    """The process works in, or has a file open under, `directory`."""
    prefix = directory.rstrip("/") + "/"
    with contextlib.suppress(OSError):
        names = [f"/proc/{pid}/cwd"] + [
            f"/proc/{pid}/fd/{fd}" for fd in os.listdir(f"/proc/{pid}/fd")
        ]
        for name in names:
            with contextlib.suppress(OSError):
                if (os.readlink(name) + "/").startswith(prefix):
                    return True
    return False
