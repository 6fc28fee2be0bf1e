"""The layers are enforced, not described: the import-linter contracts in
``pyproject.toml`` hold, a planted upward import (plain or under
``TYPE_CHECKING``), circle or pandas import in `agent_nb._core` breaks them,
and no module reads or writes another object's private attributes."""

from __future__ import annotations

import ast
import pathlib
import shutil
import subprocess
import sys

import pytest

import agent_nb

PACKAGE = pathlib.Path(agent_nb.__file__).parent
ROOT = PACKAGE.parent
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command as c; "
        "sys.exit(c(['--no-cache', '--no-logo', *sys.argv[1:]]))"]  # fmt: skip


def _lint(root: pathlib.Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    """Run the project's contracts (or only those named) on the package under ``root``."""
    args = [arg for contract in contracts for arg in ("--contract", contract)]
    return subprocess.run(
        [*LINT, *args], cwd=root, capture_output=True, text=True, env={"PYTHONPATH": str(root)}
    )


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    root = tmp_path_factory.mktemp("layers")
    shutil.copytree(PACKAGE, root / "agent_nb", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


@pytest.mark.slow  # import-linter (or Python) in a process of its own
def test_the_contracts_hold() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("KEPT") == 5 and "BROKEN" not in result.stdout


PLANTED = {
    "upward": ("_core/window.py", "from agent_nb._runtime import runner\n"),
    # a sibling layer, hidden under TYPE_CHECKING
    "type-checking-sibling": (
        "stores/_base.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from agent_nb.backends import Backend\n",
    ),
    "lazy-upward": (
        "_runtime/worker.py",
        "def later():\n    from agent_nb._jupyter import export\n",
    ),
    "circle": ("_runtime/stream.py", "from agent_nb._runtime import runner\n"),
    # the data agent's package sits above the runtime
    "runtime-imports-data": ("_runtime/agents/base.py", "from agent_nb.data import DataAgent\n"),
    # the notebook layer past the runtime's face
    "past-the-runtime-face": (
        "_jupyter/export.py",
        "from agent_nb._runtime.turn import run_turn\n",
    ),
}

#: The data package's face: what the notebook layer may import from it.
DATA_FACE = {"__init__", "agent", "answer", "chart", "context", "pipeline", "sources"}


@pytest.mark.slow  # import-linter (or Python) in a process of its own
@pytest.mark.parametrize(("module", "planted"), PLANTED.values(), ids=PLANTED.keys())
def test_a_planted_import_breaks_a_contract(
    package_copy: pathlib.Path, module: str, planted: str
) -> None:
    path = package_copy / "agent_nb" / module
    original = path.read_text()
    path.write_text(original + "\n" + planted)
    try:
        result = _lint(package_copy)
    finally:
        path.write_text(original)
    assert result.returncode != 0 and "BROKEN" in result.stdout, result.stdout


@pytest.mark.slow  # import-linter (or Python) in a process of its own
def test_a_planted_import_of_the_data_packages_internals_breaks_its_contract(
    package_copy: pathlib.Path,
) -> None:
    """`_jupyter` may use the data agent, its answer, chart, context and pipeline, never the
    planner's or the computation's modules behind them."""
    internal = next(
        p.stem for p in sorted((PACKAGE / "data").glob("*.py")) if p.stem not in DATA_FACE
    )
    path = package_copy / "agent_nb" / "_jupyter" / "export.py"
    original = path.read_text()
    path.write_text(original + f"\nimport agent_nb.data.{internal}\n")
    try:
        result = _lint(package_copy, "data-face")
        assert result.returncode != 0 and "BROKEN" in result.stdout, result.stdout
        path.write_text(original + "\nfrom agent_nb.data.agent import DataAgent\n")
        assert _lint(package_copy, "data-face").returncode == 0  # the face stays open
    finally:
        path.write_text(original)


#: pandas planted in `_core`, each way grimp sees an import.
PANDAS = {
    "plain": "import pandas\n",
    "lazy": "def later():\n    import pandas as pd\n",
    "type-checking": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pandas\n",
    "numpy": "from numpy import ndarray\n",
}


@pytest.mark.slow  # import-linter (or Python) in a process of its own
def test_the_real_core_imports_no_pandas() -> None:
    result = _lint(ROOT, "core-no-pandas")
    assert result.returncode == 0 and "KEPT" in result.stdout, result.stdout + result.stderr


@pytest.mark.slow  # import-linter (or Python) in a process of its own
@pytest.mark.parametrize("planted", PANDAS.values(), ids=PANDAS.keys())
def test_pandas_planted_in_core_breaks_its_contract(
    package_copy: pathlib.Path, planted: str
) -> None:
    """`_core` holds values; pandas belongs to `agent_nb.data` (docs/architecture.md)."""
    path = package_copy / "agent_nb" / "_core" / "tools.py"
    original = path.read_text()
    path.write_text(original + "\n" + planted)
    try:
        result = _lint(package_copy, "core-no-pandas")
    finally:
        path.write_text(original)
    assert result.returncode != 0 and "BROKEN" in result.stdout, result.stdout


@pytest.mark.slow  # import-linter (or Python) in a process of its own
def test_importing_the_runtime_loads_no_surface_module() -> None:
    """At run time too (the contracts read the source; this imports it)."""
    names = [
        "agent_nb."
        + ".".join(p.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
        for p in sorted(PACKAGE.rglob("*.py"))
        if not {"_jupyter", "mlx", "openai"} & set(p.relative_to(PACKAGE).parts[:-1])
        and p != PACKAGE / "__init__.py"
    ]
    code = (
        f"import importlib, sys\nfor n in {names!r}: importlib.import_module(n)\n"
        "print(sorted(m for m in sys.modules if m.startswith('agent_nb._jupyter')"
        " or m in ('IPython', 'anywidget', 'ipywidgets', 'traitlets')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _is_super(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
    )


def _private_reaches(source: str, where: str) -> list[str]:
    """``x._name`` and ``getattr(x, "_name")`` on anything but ``self`` / ``cls``."""
    reached = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            target, name = node.value, node.attr
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            target, name = node.args[0], node.args[1].value
        else:
            continue
        if not name.startswith("_") or name.startswith("__"):
            continue
        if isinstance(target, ast.Name) and target.id in ("self", "cls"):
            continue
        if _is_super(target):  # an inherited protocol method is self's own
            continue
        reached.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return reached


#: Reaches into other projects' objects, each for want of a public way.
THIRD_PARTY = {
    # IPython keeps no public map from a cell's file name to its In[] number.
    "_jupyter/magics/explain.py: getattr(shell.compile, '_filename_map', {})",
    # IPython registers %config lazily, as a proxy whose _resolve gives the function.
    "_jupyter/magics/config_guard.py: getattr(original, '_resolve', None)",
    # IPython's display protocol: the underscore is its public name.
    "_jupyter/magics/turn_status.py: widget._repr_mimebundle_",
    # ipykernel says whether this request's front end answers input() only in a
    # private flag (set per execute_request from its allow_stdin).
    "_jupyter/magics/approval_cell.py: getattr(kernel, '_allow_stdin', False)",
}


def test_no_module_touches_another_objects_private_attributes() -> None:
    """Objects talk through their methods (a session reaches its runner through
    `SessionServices`, the runner a session through its `SessionCore`)."""
    reached = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        for hit in _private_reaches(path.read_text(), str(path.relative_to(PACKAGE)))
    ]
    assert [h for h in reached if _without_line(h) not in THIRD_PARTY] == []


def _without_line(hit: str) -> str:
    where, _, expression = hit.partition(": ")
    return f"{where.rpartition(':')[0]}: {expression}"


def test_the_private_reach_check_sees_getattr() -> None:
    assert _private_reaches("getattr(session, '_core')\nself._x\n", "m") == [
        "m:1: getattr(session, '_core')"
    ]
