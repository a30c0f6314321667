"""The errors a user can cause, one family: each carries the exit code the command line ends with.

Exit codes: 0 all went well; 1 a request that cannot be served or a step that failed (network,
model server); 2 some input was rejected, or the options contradict each other; 3 an internal
error (a bug: set FRONTIER_DEBUG=1 for the traceback); 130 interrupted with Ctrl-C.
"""

from __future__ import annotations

EXIT_OK, EXIT_FAILED, EXIT_REJECTED, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


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
