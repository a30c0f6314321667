"""The errors a user can cause, one family: each carries the exit code the command line ends
with. EXIT_CODES is the one table of exit codes: `--help` and the README show it. Also the
words both the config and the source readers use to say what is wrong with a value."""

from __future__ import annotations

import unicodedata

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


_WHITESPACE = "\t\n\r\x0b\x0c"
_REPLACEMENT = "\ufffd"


def bad_character(text: str) -> str | None:
    """Why `text` cannot be stored as it is, or None: the first character no source should hold."""
    for position, char in enumerate(text, start=1):
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that did not decode, kept by surrogateescape
            return f"not UTF-8 text (byte 0x{code - 0xDC00:02X} at character {position})"
        category = unicodedata.category(char)
        if category == "Cs":
            return f"a lone surrogate U+{code:04X} at character {position} (not valid Unicode)"
        if category == "Cc" and char not in _WHITESPACE:
            return f"control character U+{code:04X} at character {position}"
        if char == _REPLACEMENT:
            return (
                f"replacement character U+FFFD at character {position} "
                "(the text was damaged by a wrong encoding)"
            )
    return None


def kind_of(value: object) -> str:
    """What a JSON-like value is, in a word."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
