"""Scripts run as ``python -c`` would run them, each in a child forked from one
interpreter that paid the imports once.

Run as ``python -m tests.runtime.script_forks OUT_DIR PARALLEL SCRIPT...``
(each SCRIPT a file). The server imports what every script imports before it
loads a model (agent_nb, and the transformers classes mlx-lm's tokenizer module
takes: about two seconds of CPU a script), but not ``mlx.core``, and starts no
thread; then it forks one child per script, ``PARALLEL`` at a time. A child points its
stdout and stderr at ``OUT_DIR/<n>.out`` and ``OUT_DIR/<n>.err``, runs the
script in a fresh ``__main__`` namespace, and then leaves the way ``python -c``
does: back at the module's top level with nothing of the server's on its
stack, so the interpreter finalises normally -- atexit hooks, thread-local
destructors and all, which is where the exit crash of
`tests.runtime.test_clean_exit` lived. An exception in a script is printed
and exits 1, as it would there. The server's last stdout line is the JSON
list of the children's exit codes, in script order.
"""

from __future__ import annotations

import builtins
import json
import os
import sys
from pathlib import Path

__all__ = ["Child", "main"]


class Child:
    """What a forked child runs once the server's frames are gone."""

    def __init__(self, number: int, source: str, out_dir: Path) -> None:
        self.number, self.source, self.out_dir = number, source, out_dir

    def run(self) -> None:
        for fd, suffix in ((1, "out"), (2, "err")):
            path = self.out_dir / f"{self.number}.{suffix}"
            target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(target, fd)
            os.close(target)
        sys.argv = ["-c"]
        namespace = {"__name__": "__main__", "__builtins__": builtins}
        exec(compile(self.source, "<string>", "exec"), namespace)


def main(argv: list[str]) -> Child | None:
    """Fork the scripts; in the parent print the exit codes and return None, in a
    child return the `Child` to run at the top level."""
    out_dir, parallel, *scripts = argv
    sources = [Path(script).read_text() for script in scripts]

    # What each script would import anyway, once; mlx.core stays unimported, so each
    # child settles its BLAS and starts its MLX thread as a fresh interpreter does.
    from transformers import AutoTokenizer, PreTrainedTokenizerFast  # noqa: F401

    import agent_nb
    import agent_nb.backends.mlx  # noqa: F401
    from tests.fork_server import assert_fork_safe

    assert "mlx.core" not in sys.modules, "mlx.core imported before the fork"
    codes: list[int | None] = [None] * len(sources)
    pending = list(enumerate(sources))
    running: dict[int, int] = {}
    while pending or running:
        while pending and len(running) < int(parallel):
            number, source = pending.pop(0)
            assert_fork_safe()
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                return Child(number, source, Path(out_dir))
            running[pid] = number
        pid, status = os.wait()
        codes[running.pop(pid)] = os.waitstatus_to_exitcode(status)
    print(json.dumps(codes), flush=True)
    return None


if __name__ == "__main__":
    child = main(sys.argv[1:])
    if child is not None:
        child.run()
