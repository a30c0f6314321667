"""A workspace: a folder with `frontier.toml`, found from the current directory upwards."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

from frontier.config import CONFIG_NAME, Settings, load_settings
from frontier.errors import ConfigError
from frontier.errors import WorkspaceError as WorkspaceError  # re-exported for callers
from frontier.store.db import connect

STATE_DIR = ".frontier"


@dataclass
class Workspace:
    root: Path
    settings: Settings

    def on_engine(self, engine: str | None) -> Workspace:
        """This workspace with ingest's CPU work on `engine` (None: as configured)."""
        if engine is None:
            return self
        cluster = self.settings.cluster.model_copy(update={"engine": engine})
        return replace(self, settings=self.settings.model_copy(update={"cluster": cluster}))

    @property
    def config_path(self) -> Path:
        return self.root / CONFIG_NAME

    @property
    def db_path(self) -> Path:
        return self.root / STATE_DIR / "frontier.db"

    @property
    def pdf_cache(self) -> Path:
        return self.root / STATE_DIR / "cache" / "pdf"

    @property
    def kb_dir(self) -> Path:
        return self.root / "kb"

    def connect(self) -> sqlite3.Connection:
        return connect(self.db_path)


def find_root(start: Path) -> Path | None:
    for folder in [start, *start.parents]:
        if (folder / CONFIG_NAME).is_file():
            return folder
    return None


def open_workspace(explicit: Path | None = None, cwd: Path | None = None) -> Workspace:
    """The workspace named by -w, else the nearest one from the current directory upwards."""
    if explicit is not None:
        root = explicit.resolve()
        if not (root / CONFIG_NAME).is_file():
            raise WorkspaceError(f"{root}: no {CONFIG_NAME} here (run `frontier init {explicit}`)")
    else:
        here = (cwd or Path.cwd()).resolve()
        found = find_root(here)
        if found is None:
            raise WorkspaceError(
                f"no {CONFIG_NAME} in {here} or its parents (run `frontier init DIR` or pass -w DIR)"
            )
        root = found
    try:
        settings = load_settings(root / CONFIG_NAME)
    except ConfigError as exc:
        raise WorkspaceError(str(exc)) from exc
    return Workspace(root, settings)


def default_config_text() -> str:
    return (
        resources.files("frontier.templates").joinpath("frontier.toml").read_text(encoding="utf-8")
    )


def init_workspace(root: Path, force: bool = False) -> Workspace:
    """Write a commented config and create the KB folders and database under `root`."""
    root.mkdir(parents=True, exist_ok=True)
    config = root / CONFIG_NAME
    if config.exists() and not force:
        raise WorkspaceError(f"{config} already exists (use --force to overwrite it)")
    config.write_text(default_config_text(), encoding="utf-8")
    workspace = open_workspace(root)
    workspace.kb_dir.mkdir(exist_ok=True)
    workspace.connect().close()
    return workspace
