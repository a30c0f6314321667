"""The errors a user can cause, one family: each carries the exit code the command line ends
with. EXIT_CODES is the one table of exit codes: `--help` and the README show it."""

from __future__ import annotations

EXIT_OK, EXIT_FAILED, EXIT_REJECTED, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_HANGUP, EXIT_TERMINATED = 129, 143

EXIT_CODES: dict[int, str] = {
    EXIT_OK: "all went well",
    EXIT_FAILED: "failed in part: a step failed (network, model server) or a request cannot be "
    "served (unknown topic, no workspace, bad config)",
    EXIT_REJECTED: "some input was rejected (each named with its reason), or options contradict "
    "each other",
    EXIT_INTERNAL: "an internal error, a bug: one line on stderr; FRONTIER_DEBUG=1 shows the "
    "traceback",
    EXIT_HANGUP: "stopped by SIGHUP: everything finished so far is stored",
    EXIT_INTERRUPTED: "interrupted with Ctrl-C: everything finished so far is stored, and the "
    "same command resumes",
    EXIT_TERMINATED: "stopped by SIGTERM (a scheduler's timeout, kill): everything finished so "
    "far is stored, and the same command resumes",
}


class FrontierError(Exception):
    """Something the user can fix; the message says what and how. The CLI prints it on one line."""

    exit_code = EXIT_FAILED


class ConfigError(FrontierError):
    """A config file that cannot be used; the message names the file and the key."""


class WorkspaceError(FrontierError):
    """No usable workspace; the message says where we looked."""


class KBError(FrontierError):
    """A request the KB cannot carry out; the message says why and what is known."""


class AskError(FrontierError):
    """A request `ask` or `map` cannot serve (unknown topic or preset, nothing to follow up on)."""


class OptionsError(FrontierError):
    """Options that contradict each other, such as --json with --csv."""

    exit_code = EXIT_REJECTED
