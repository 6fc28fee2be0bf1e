"""Whether a notebook front end is showing this kernel's outputs.

``jupyter nbconvert --execute`` and papermill run a notebook through nbclient:
there is no one to insert a cell (``%%agent --code``) or to render a live
widget, and an exported HTML page shows a widget as a blank box. Such a
batch runner is known by its execute requests: no ``cellId`` (JupyterLab and
Notebook 7 send one) and ``allow_stdin`` false (it cannot answer ``input()``;
classic Notebook and VS Code can). Voilà runs notebooks the same way but does
render widgets; it names itself in the kernel's ``SERVER_SOFTWARE``.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["batch_run"]


def batch_run(shell: Any) -> bool:
    """True while a batch runner (nbconvert, papermill) executes the current cell."""
    kernel = getattr(shell, "kernel", None)
    if kernel is None:  # terminal IPython: its next prompt takes set_next_input
        return False
    if os.environ.get("SERVER_SOFTWARE", "").startswith("voila"):
        return False
    try:
        parent = kernel.get_parent()
        metadata, content = parent.get("metadata") or {}, parent.get("content") or {}
    except Exception:  # no request in progress (a comm callback): assume a front end
        return False
    return bool(parent) and "cellId" not in metadata and not content.get("allow_stdin", False)
