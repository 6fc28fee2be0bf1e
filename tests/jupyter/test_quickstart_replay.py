"""Restart and Run All, twice, on the embedded model: the second run replays.

Each run is a fresh kernel (nbclient), as a teacher's "Restart and Run All"
is; both share one replay file. The second run's replies equal the first's,
every model cell says it was replayed, and the wall times are printed.
"""

from __future__ import annotations

import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

QUICKSTART = Path(__file__).parents[2] / "notebooks" / "01_quickstart.ipynb"

pytestmark = [pytest.mark.kernel, pytest.mark.mlx]


def _is_model_cell(cell: nbformat.NotebookNode) -> bool:
    source = cell.source.lstrip()
    return cell.cell_type == "code" and (
        source.startswith("%%agent") or source.startswith("%agent explain")
    )


def _reply(cell: nbformat.NotebookNode) -> tuple[str, bool]:
    """(the reply as shown, without its notes; whether a note says it was replayed)."""
    shown = [o for o in cell.outputs if "text/markdown" in o.get("data", {})]
    assert shown, cell.source
    text = shown[-1]["data"]["text/plain"]
    lines = text.splitlines()
    replayed = any(line.startswith("↻ replayed") for line in lines)
    kept = [line for line in lines if not line.startswith(("↻ replayed", "⚠ "))]
    return "\n".join(kept), replayed


def _run(tmp_path: Path) -> tuple[nbformat.NotebookNode, float]:
    nb = nbformat.read(QUICKSTART, as_version=4)
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    started = time.perf_counter()
    client.execute()
    return nb, time.perf_counter() - started


def test_run_all_twice_replays_every_model_cell(
    embedded_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_NB_REPLAY", "1")  # the kernels inherit it
    monkeypatch.setenv("AGENT_NB_REPLAY_FILE", str(tmp_path / "replay.sqlite"))
    cold, cold_s = _run(tmp_path)
    warm, warm_s = _run(tmp_path)
    print(f"\nquickstart Run All: cold {cold_s:.1f} s, replayed {warm_s:.1f} s "
          f"(ratio {warm_s / cold_s:.2f})")  # fmt: skip
    model_cells = [i for i, c in enumerate(cold.cells) if _is_model_cell(c)]
    assert len(model_cells) >= 6
    for i in model_cells:
        first, first_replayed = _reply(cold.cells[i])
        second, second_replayed = _reply(warm.cells[i])
        assert second == first, cold.cells[i].source
        assert not first_replayed and second_replayed, cold.cells[i].source
    # the stale-mark demo: the city changed after the answer, in both runs
    facts = next(c for c in warm.cells if "{city}" in c.source)
    assert any("⚠ `city` changed since this answer" in o["data"]["text/plain"]
               for o in facts.outputs if "data" in o)  # fmt: skip
    assert warm_s < cold_s
