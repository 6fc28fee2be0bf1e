"""docs/architecture.md's layers table and data-face list say what the import-linter
contracts in ``pyproject.toml`` enforce: a contract changed without the page (or the
page without the contract) fails here, naming both (issue 49: the face list had
drifted from the contract)."""

from __future__ import annotations

import pathlib
import re
import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _contract(contract_id: str) -> dict[str, object]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [found] = [c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == contract_id]
    return found


def _page_layers() -> list[str]:
    """The layers table's first column, top to bottom, as module names."""
    rows = re.findall(r"^\| `agent_nb/([\w/.]+?)/?` \|", PAGE, re.MULTILINE)
    return ["agent_nb." + row.removesuffix(".py").replace("/", ".") for row in rows]


def test_the_layers_table_is_the_layers_contract() -> None:
    layers = _contract("layers")["layers"]
    assert isinstance(layers, list)
    # "a | b" is one layer of independent siblings: the table lists them in that order
    expected = [name.strip() for layer in layers for name in layer.split("|")]
    assert _page_layers() == expected


def test_the_data_face_list_is_the_data_face_contract() -> None:
    ignored = _contract("data-face")["ignore_imports"]
    assert isinstance(ignored, list)
    allowed = sorted(line.rsplit("agent_nb.data.", 1)[1] for line in ignored)
    sentence = re.search(r"data package's public modules \(([^)]*)\)", PAGE)
    assert sentence is not None, "the page no longer names the data package's face"
    named = sorted(re.findall(r"`(\w+)`", sentence.group(1)))
    assert named == allowed


def test_the_notebook_layer_imports_one_runtime_module() -> None:
    """Issue 49: `_jupyter` imported 13 `_runtime` modules; now the face alone, and the
    page names it with its contract."""
    contract = _contract("runtime-face")
    assert contract["ignore_imports"] == ["agent_nb._jupyter.** -> agent_nb._runtime.face"]
    imported = set()
    for path in (ROOT / "agent_nb" / "_jupyter").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        imported |= set(re.findall(r"from \.\.\.?_runtime\.([\w.]+) import", text))
        imported |= set(re.findall(r"agent_nb\._runtime\.([\w.]+) import", text))
    assert imported == {"face"}
    assert "`agent_nb._runtime.face`" in PAGE and "`runtime-face` contract" in PAGE
