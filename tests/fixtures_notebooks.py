"""The quickstart notebook's Run All, shared: a kernel start, a model load and six
model cells cost most of a minute, and two test modules read the same cold run
(`test_notebooks` checks what it shows, `test_quickstart_replay` replays it)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # nbformat and nbclient load when a notebook runs, not at collection
    import nbformat

__all__ = ["QUICKSTART", "NotebookRun", "quickstart_cold", "run_all"]

QUICKSTART = Path(__file__).parents[1] / "notebooks" / "01_quickstart.ipynb"


@dataclasses.dataclass(frozen=True)
class NotebookRun:
    nb: nbformat.NotebookNode
    seconds: float
    replay_file: Path
    workdir: Path


def run_all(path: Path, workdir: Path, replay_file: Path, *, replay: bool = True) -> NotebookRun:
    """Restart and Run All in a fresh kernel (nbclient), with replay on (into
    ``replay_file``) or off."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(workdir)}}
    )
    with pytest.MonkeyPatch.context() as env:  # the kernel inherits these
        env.setenv("AGENT_NB_REPLAY", "1" if replay else "0")
        env.setenv("AGENT_NB_REPLAY_FILE", str(replay_file))
        started = time.perf_counter()
        client.execute()  # raises CellExecutionError on the first failing cell
        seconds = time.perf_counter() - started
    return NotebookRun(nb, seconds, replay_file, workdir)


@pytest.fixture(scope="session")
def quickstart_cold(
    embedded_model_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> NotebookRun:
    """The quickstart run once, with an empty replay file: every model cell generates."""
    workdir = tmp_path_factory.mktemp("quickstart")
    return run_all(QUICKSTART, workdir, workdir / "replay.sqlite")
