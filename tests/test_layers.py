"""The layers stay visible and one-way: the runtime never imports the Jupyter
surface, and no module reads or writes another object's private attributes."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import agent_nb

PACKAGE = pathlib.Path(agent_nb.__file__).parent
SURFACE = PACKAGE / "_jupyter"


def _modules(root: pathlib.Path) -> list[pathlib.Path]:
    return sorted(root.rglob("*.py"))


def _runtime_modules() -> list[pathlib.Path]:
    # The package root is the one door to the surface (`ChatWidget`, `%load_ext`),
    # and it opens it lazily.
    return [
        p for p in _modules(PACKAGE)
        if SURFACE not in p.parents and p != PACKAGE / "__init__.py"
    ]  # fmt: skip


def _imported(path: pathlib.Path) -> set[str]:
    """Absolute names of every module ``path`` imports, at any depth of the file."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def test_the_runtime_never_imports_the_jupyter_surface() -> None:
    offenders = {
        str(p.relative_to(PACKAGE)): sorted(n for n in _imported(p) if "._jupyter" in n)
        for p in _runtime_modules()
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_ast_check_sees_a_lazy_surface_import() -> None:
    """The check above would catch an import hidden inside a function."""
    imported = _imported(PACKAGE / "__init__.py")
    assert "agent_nb._jupyter.widget.chat_widget.ChatWidget" in imported


def test_importing_every_runtime_module_loads_no_surface_module() -> None:
    names = [
        "agent_nb." + ".".join(p.relative_to(PACKAGE).with_suffix("").parts)
        for p in _runtime_modules()
        if p.name not in ("mlx.py", "openai.py") and not p.name.startswith(("_mlx", "_openai"))
        and p.name != "_embedded.py"
    ]  # fmt: skip
    code = (
        f"import importlib, sys\nfor n in {names!r}: importlib.import_module(n)\n"
        "print(sorted(m for m in sys.modules if m.startswith('agent_nb._jupyter')"
        " or m in ('IPython', 'anywidget', 'ipywidgets', 'traitlets')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_module_touches_another_objects_private_attributes() -> None:
    """``x._name`` only on ``self`` / ``cls``: objects talk through their methods
    (sessions reach the runner through `SessionHost`)."""
    reached = []
    for path in _modules(PACKAGE):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Attribute) and node.attr.startswith("_")):
                continue
            if node.attr.startswith("__"):
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            reached.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {ast.unparse(node)}")
    assert reached == []
