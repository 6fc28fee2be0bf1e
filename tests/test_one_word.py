"""One word, one meaning (docs/architecture.md's glossary): identifiers retired because
they named a second meaning stay retired. Each entry says what replaced it; a scan of
the package, tests, docs and js/ fails when one comes back (``agent_nb/data/`` is
another engineer's work in progress this round and is not scanned)."""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent

RETIRED = {
    # holder: a surface using a session; a lease's owner is the lease owner
    "TurnLeases.holder": (r"leases\.holder\b|self\.holder = LeaseOwner", "TurnLeases.owner"),
    "SET_HOLDER": (r"\bSET_HOLDER\b|\bnew_holder\b", "SET_LEASE_OWNER, new_owner"),
    "row.holder": (r"\brow\.holder\b", "the lease_owner label"),
    "_jupyter/holders.py": (r"_jupyter[./]holders\b|from \.\.holders import", "holder_names"),
    # the data a turn answers from: one name per thing
    "DataTurn": (r"\bDataTurn\b", "DataQuestion (_jupyter/data_question.py)"),
    "TurnData": (r"\bTurnData\b", "DataSource (the runtime's protocol)"),
    # drive: the engine's loop only
    "drive_part": (r"\bdrive_part\b", "settle(show_part=...)"),
    # the reply's text is _core.reply.reply_text; a callback's is replacement_text
    "callbacks.reply_text": (r"callbacks import[^\n]*\breply_text\b", "replacement_text"),
    # a stream is an EventStream; the engine's sink that feeds one is StreamSink
    "engine.Stream": (r"\bclass Stream\(|engine import[^\n]*\bStream\b(?!Sink)", "StreamSink"),
    # never used, removed (issue 49)
    "mcp_worker": (r"\bmcp_worker\b", "nothing"),
    "shared_state_writes": (r"(?<!_)\bshared_state_writes\b", "nothing"),
}


def _files() -> list[pathlib.Path]:
    found = [*(ROOT / "agent_nb").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]
    found += [*(ROOT / "docs").glob("*.md"), ROOT / "README.md", *(ROOT / "js").glob("*.js")]
    here = pathlib.Path(__file__).resolve()
    data = ROOT / "agent_nb" / "data"
    return [p for p in found if p.resolve() != here and not p.is_relative_to(data)]


def come_back(files: list[pathlib.Path]) -> list[str]:
    back = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        for name, (pattern, instead) in RETIRED.items():
            for match in re.finditer(pattern, text):
                line = text.count("\n", 0, match.start()) + 1
                back.append(f"{path.relative_to(ROOT)}:{line}: {name} (use {instead})")
    return back


def test_no_retired_identifier_comes_back() -> None:
    assert come_back(_files()) == []


def test_a_retired_identifier_is_found(tmp_path: pathlib.Path) -> None:
    sample = ROOT / "tests" / f".{tmp_path.name}_sample.py"
    sample.write_text("from agent_nb._jupyter.data_turn import DataTurn\n", encoding="utf-8")
    try:
        assert come_back([sample]) == [
            f"{sample.relative_to(ROOT)}:1: DataTurn (use DataQuestion (_jupyter/data_question.py))"
        ]
    finally:
        sample.unlink()
