"""Workspaces: init, discovery from sub-folders, -w, env overrides, and errors naming the key."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args, get_origin

import pytest
from helpers import run_cli

from frontier.config import ConfigError, OutOfScopeLine, Settings, load_settings, read_config_file


def test_init_writes_commented_config_with_topics(workspace: Path) -> None:
    text = (workspace / "frontier.toml").read_text()
    assert text.count("[[topics]]") >= 3 and text.lstrip().startswith("#")
    settings = load_settings(workspace / "frontier.toml")
    serving = settings.topic("serving")
    routes = {line.route_to for line in serving.out_of_scope_lines()}
    assert {"models", "inference-economics", "hardware"} <= routes
    assert (workspace / ".frontier" / "frontier.db").exists() and (workspace / "kb").is_dir()
    again = run_cli("init", str(workspace))
    assert again.code == 1 and "already exists" in again.err


def test_scope_line_routes() -> None:
    assert OutOfScopeLine.parse("the silicon it runs on → hardware") == OutOfScopeLine(
        text="the silicon it runs on", route_to="hardware"
    )
    assert OutOfScopeLine.parse("training-only tricks").route_to is None


def test_commands_find_the_workspace_from_a_subfolder(workspace: Path) -> None:
    sub = workspace / "kb" / "deep"
    sub.mkdir(parents=True)
    result = run_cli("status", "--json", cwd=sub)
    assert result.code == 0 and result.json()["workspace"] == str(workspace.resolve())


def test_no_workspace_is_a_clear_error(tmp_path: Path) -> None:
    result = run_cli("status", cwd=tmp_path)
    assert result.code == 1 and "frontier.toml" in result.err and "Traceback" not in result.err


def test_environment_overrides_the_file(workspace: Path) -> None:
    result = run_cli(
        "-w", str(workspace), "status", "--json", env={"FRONTIER_FIELD__NAME": "Test field"}
    )
    assert result.json()["field"] == "Test field"


@pytest.mark.parametrize(
    ("edit", "key"),
    [
        (lambda t: t.replace("window_days = 30", "window_days = -3", 1), "topics.0.window_days"),
        (lambda t: t.replace('slug = "serving"', 'slug = "Serving Topic"', 1), "topics.0.slug"),
        (
            lambda t: t.replace("delay_seconds = 3.0", "delay_seconds = 'soon'"),
            "arxiv.delay_seconds",
        ),
        (lambda t: t.replace("-> hardware", "-> silicon", 1), "unknown topic 'silicon'"),
        (lambda t: t + "\n[llm]\nbase_url = 1\n", "not valid TOML"),
        (lambda t: t.replace("[ingest]", "[ingest]\nspeed = 3"), "ingest.speed"),
    ],
)
def test_bad_config_names_file_and_key(workspace: Path, edit, key: str) -> None:
    config = workspace / "frontier.toml"
    config.write_text(edit(config.read_text()))
    with pytest.raises(ConfigError) as caught:
        load_settings(config)
    assert str(config) in str(caught.value) and key in str(caught.value)
    result = run_cli("-w", str(workspace), "status")
    assert result.code == 1 and key in result.err and "Traceback" not in result.err


def _written_wrong(annotation: object) -> str:
    """A TOML value that does not fit a field of this type as written: a number where text goes,
    text anywhere else (where a number, a switch, a list or a table goes)."""
    text = annotation is str or get_origin(annotation) is Literal
    return "12" if text else '"12"'


@pytest.mark.parametrize("section", list(Settings.model_fields))
def test_every_key_of_every_section_is_checked_as_written(tmp_path: Path, section: str) -> None:
    annotation = Settings.model_fields[section].annotation
    listed = get_origin(annotation) is list
    model = get_args(annotation)[0] if listed else annotation
    config = tmp_path / "frontier.toml"
    for key, field in model.model_fields.items():
        header = f"[[{section}]]" if listed else f"[{section}]"
        config.write_text(f"{header}\n{key} = {_written_wrong(field.annotation)}\n")
        with pytest.raises(ConfigError) as caught:
            read_config_file(config)
        where = f"{section}.0.{key}" if listed else f"{section}.{key}"
        assert f"key '{where}'" in str(caught.value), (where, str(caught.value))
