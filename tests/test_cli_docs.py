"""Docs that cannot drift: every command has --help and a place in the README, and so does
every config section."""

from __future__ import annotations

import tomllib

import pytest
from helpers import REPO, run_cli

from frontier.cli import app
from frontier.workspace import default_config_text

COMMANDS = sorted(c.name or c.callback.__name__ for c in app.registered_commands)  # type: ignore[union-attr]
README = (REPO / "README.md").read_text()


def test_readme_opens_with_exactly_the_two_commands() -> None:
    block = README.split("```")[1].strip().splitlines()
    assert [line.split("#")[0].strip() for line in block] == ["make demo", "make test"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_and_is_documented(command: str) -> None:
    result = run_cli(command, "--help")
    assert result.code == 0 and "Usage" in result.out
    assert f"frontier {command}" in README


def test_expected_commands_exist() -> None:
    assert {"init", "discover", "add", "ingest", "search", "show", "status", "demo"} <= set(
        COMMANDS
    )


def test_every_config_section_is_documented() -> None:
    config = tomllib.loads(default_config_text())
    for section, body in config.items():
        assert f"[{section}]" in README, section
        keys = body[0].keys() if isinstance(body, list) else body.keys()
        for key in keys:
            assert f"`{key}`" in README, f"{section}.{key}"
