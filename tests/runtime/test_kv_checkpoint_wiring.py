"""What the runner tells its backends about KV checkpoints (issue 31), on a scripted model.

`DiskBackend` is the scripted model plus the checkpoint hooks of the `Backend`
seam, kept as a record: each generation "writes" 1,000 bytes for the key's
session, as the MLX backend writes its cache. The real files and the
real restart are in `test_kv_resume_restart` (MLX).
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
from collections.abc import AsyncIterator
from typing import Any, ClassVar

import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb import get_runner
from agent_nb._core.types import GenerateContentRequest
from agent_nb.backends import CancelToken, Chunk, ScriptedBackend
from agent_nb.stores import MemoryStore, SQLiteStore, resolve_store
from tests.fixtures_magics import final_bundle, magics, run
from tests.fixtures_runtime import RunnerFactory


class DiskBackend(ScriptedBackend):
    supports_prompt_cache: ClassVar[bool] = True  # so turns hand it their cache key

    def __init__(self) -> None:
        super().__init__()
        self.plans: list[dict[str, Any]] = []
        self.offs = 0
        self.deleted: list[str] = []
        self.files: dict[str, int] = {}
        self.identity: str | None = None

    def configure_checkpoints(
        self,
        *,
        store_identity: str,
        directory: str | os.PathLike[str] | None = None,
        disk_budget: int | None = None,
    ) -> bool:
        plan = {"store": store_identity, "directory": directory, "budget": disk_budget}
        self.plans.append(plan)
        self.identity = store_identity
        return True

    def checkpoints_off(self) -> None:
        self.offs += 1
        self.identity = None

    def delete_checkpoints(self, session_id: str) -> None:
        self.deleted.append(session_id)
        self.files.pop(session_id, None)

    def checkpoint_bytes(self) -> dict[str, int]:
        return dict(self.files) if self.identity is not None else {}

    async def stream(
        self, request: GenerateContentRequest, *, cache: str | None, cancel: CancelToken
    ) -> AsyncIterator[Chunk]:
        if cache is not None and self.identity is not None:  # (the caller may stop at Finish)
            session = cache.partition("/")[0]
            self.files[session] = self.files.get(session, 0) + 1000
        async for chunk in super().stream(request, cache=cache, cancel=cancel):
            yield chunk


@pytest.fixture
def disk() -> DiskBackend:
    return DiskBackend()


@pytest.fixture
def db(tmp_path: pathlib.Path) -> str:
    return f"sqlite:///{tmp_path / 'sessions.db'}"


# -- the default, and the switches -------------------------------------------------


def test_a_memory_store_keeps_no_checkpoints(make_runner: RunnerFactory, disk: DiskBackend) -> None:
    """Its sessions die with the kernel: no later process could resume from a file."""
    runner = make_runner(model=disk)
    runner.get_or_create_session("s").run("hi")
    assert runner.kv_checkpoints is False and disk.plans == [] and disk.files == {}
    assert runner.memory()["kv_checkpoints"] is False
    with pytest.raises(ValueError, match=r"outlive the kernel.*MemoryStore"):
        make_runner(model=disk, kv_checkpoints=True)
    with pytest.raises(ValueError, match="outlive the kernel"):
        runner.kv_checkpoints = True
    sqlite_in_memory = resolve_store("sqlite:///:memory:")
    assert sqlite_in_memory.identity is None and MemoryStore().identity is None
    assert make_runner(model=disk, store=sqlite_in_memory).kv_checkpoints is False


def test_a_persistent_store_turns_them_on_for_every_backend(
    make_runner: RunnerFactory, disk: DiskBackend, db: str, tmp_path: pathlib.Path
) -> None:
    runner = make_runner(model=disk, store=db, kv_disk_budget=10_000, kv_directory=tmp_path)
    assert runner.kv_checkpoints is True and runner.kv_disk_budget == 10_000
    runner.get_or_create_session("s").run("hi")
    (plan,) = disk.plans
    store_id = SQLiteStore(tmp_path / "sessions.db").identity  # the id kept in the file
    assert store_id is not None and store_id.startswith("agent_nb-store:")
    assert plan == {"store": json.dumps([store_id, "agent_nb", "default"]),
                    "directory": tmp_path, "budget": 10_000}  # fmt: skip
    # A model named later (-m, model=) is configured when it is first resolved.
    other = DiskBackend()
    runner.check_model(other)
    assert other.plans == [plan]
    runner.shutdown()  # the writers stop; the files stay for the next kernel
    assert disk.offs == 1 and other.offs == 1 and disk.deleted == []


def test_store_identities_keep_stores_and_users_apart(
    make_runner: RunnerFactory, tmp_path: pathlib.Path
) -> None:
    (tmp_path / "a").mkdir()
    link = tmp_path / "link.db"
    link.symlink_to(tmp_path / "a" / "x.db")
    same = {SQLiteStore(tmp_path / "a" / "x.db").identity, SQLiteStore(link).identity}
    assert len(same) == 1  # one file, whichever path opens it
    assert SQLiteStore(tmp_path / "a" / "y.db").identity not in same
    identities = set()
    for user in ("ann", "bob"):
        backend = DiskBackend()
        make_runner(model=backend, store=f"sqlite:///{link}", user_id=user).backend_for(None)
        identities.add(backend.plans[0]["store"])
    assert len(identities) == 2


def test_a_copied_or_moved_store_keeps_its_checkpoints(
    make_runner: RunnerFactory, tmp_path: pathlib.Path
) -> None:
    """Checkpoints are kept under the id inside the store, not its path (issue 39, 3.9): the
    backends of a runner on a copy, or on the file moved away, are told the same identity,
    so its first turn resumes from the checkpoint instead of reading everything again."""
    original = tmp_path / "a.db"
    first = DiskBackend()
    runner = make_runner(model=first, store=f"sqlite:///{original}", kv_directory=tmp_path)
    runner.get_or_create_session("s").run("hi")
    runner.shutdown()
    assert first.files == {"s": 1000}
    copy = tmp_path / "copy.db"
    shutil.copy(original, copy)
    moved = tmp_path / "moved" / "a.db"
    moved.parent.mkdir()
    shutil.move(original, moved)
    for path in (copy, moved):
        backend = DiskBackend()
        make_runner(model=backend, store=f"sqlite:///{path}", kv_directory=tmp_path).backend_for(
            None
        )
        assert backend.plans[0]["store"] == first.plans[0]["store"]


def test_the_switches_turn_checkpoints_off_and_on_again(
    make_runner: RunnerFactory, disk: DiskBackend, db: str
) -> None:
    off = make_runner(model=DiskBackend(), store=db, kv_checkpoints=False)
    off.get_or_create_session("s").run("hi")
    assert off.kv_checkpoints is False and off.backend_for(None).checkpoint_bytes() == {}

    runner = make_runner(model=disk, store=db)
    runner.backend_for(None)
    runner.kv_checkpoints = False
    assert disk.identity is None and runner.kv_checkpoints is False
    runner.kv_checkpoints = None  # back to the store's default
    assert disk.identity is not None and len(disk.plans) == 2
    runner.kv_disk_budget = 5 << 20
    assert disk.plans[-1]["budget"] == 5 << 20
    for bad in (-1, 1.5, True, "2GB"):
        with pytest.raises((TypeError, ValueError), match="kv_disk_budget"):
            runner.kv_disk_budget = bad  # type: ignore[assignment]
    with pytest.raises(TypeError, match="True, False or None"):
        make_runner(model=disk, store=db, kv_checkpoints="yes")
    assert runner.kv_disk_budget == 5 << 20


# -- what keeps and what removes a session's checkpoints ---------------------------------


def test_delete_removes_a_sessions_checkpoints_close_keeps_them(
    make_runner: RunnerFactory, disk: DiskBackend, db: str
) -> None:
    runner = make_runner(model=disk, store=db)
    for name in ("kept", "gone"):
        runner.get_or_create_session(name).run("hi")
    assert runner.kv_disk_bytes() == {"kept": 1000, "gone": 1000}
    memory = runner.memory()
    assert memory["sessions"]["kept"]["kv_disk_bytes"] == 1000
    assert memory["kv_disk_bytes_total"] == 2000
    runner.get_or_create_session("kept").close()
    runner.delete_session("gone")
    assert disk.deleted == ["gone"] and runner.kv_disk_bytes() == {"kept": 1000}
    # A single-turn session is removed when its stream ends, files and all.
    runner.run_single_turn("once")
    assert len(disk.deleted) == 2 and disk.deleted[1].startswith("_st-")
    assert runner.kv_disk_bytes() == {"kept": 1000}


def test_clear_removes_every_checkpoint_of_the_user_even_from_past_kernels(
    make_runner: RunnerFactory, db: str
) -> None:
    past = DiskBackend()
    before = make_runner(model=past, store=db)
    before.get_or_create_session("old").run("hi")
    before.shutdown()
    now = DiskBackend()
    now.files = dict(past.files)  # the same folder, read by a new kernel's backend
    runner = make_runner(model=now, store=db)
    assert runner.kv_disk_bytes() == {"old": 1000}  # found before any turn here
    runner.get_or_create_session("new").run("hi")
    runner.clear_all_sessions()
    assert sorted(now.deleted) == ["new", "old"] and runner.kv_disk_bytes() == {}


def test_backends_sharing_the_folder_are_counted_once(
    make_runner: RunnerFactory, disk: DiskBackend, db: str
) -> None:
    runner = make_runner(model=disk, store=db)
    runner.get_or_create_session("s").run("hi")
    other = DiskBackend()
    runner.check_model(other)
    other.files = dict(disk.files)  # each model's backend lists every file of the folder
    assert runner.memory()["kv_disk_bytes"] == {"s": 1000}


# -- the notebook ---------------------------------------------------------------------


@pytest.fixture
def disk_shell(
    shell: InteractiveShell, disk: DiskBackend, db: str, make_runner: RunnerFactory
) -> InteractiveShell:
    from agent_nb import set_runner

    set_runner(make_runner(model=disk, store=db))
    return shell


def test_config_switches_apply_to_the_kernel_runner(disk_shell: InteractiveShell) -> None:
    runner = get_runner()
    assert runner.kv_checkpoints is True
    run(disk_shell, "%config AgentMagics.kv_checkpoints = False")
    assert runner.kv_checkpoints is False
    run(disk_shell, "%config AgentMagics.kv_disk_budget = 1000000")
    assert runner.kv_disk_budget == 1_000_000
    run(disk_shell, "%config AgentMagics.kv_disk_budget = -5")  # %config logs the TraitError
    assert magics(disk_shell).kv_disk_budget == 1_000_000 == runner.kv_disk_budget
    run(disk_shell, "%config AgentMagics.kv_checkpoints = True")
    assert runner.kv_checkpoints is True and runner.kv_disk_budget == 1_000_000


def test_agent_memory_and_delete_show_the_disk_bytes(
    disk_shell: InteractiveShell, disk: DiskBackend
) -> None:
    run(disk_shell, "%%agent s\nhi")
    run(disk_shell, "%%agent t\nhi")
    _, cap = run(disk_shell, "%agent memory")
    text = final_bundle(cap)["text/plain"]
    assert '"kv_disk_bytes": 1000' in text and '"kv_disk_bytes_total": 2000' in text
    _, cap = run(disk_shell, "%agent delete s")
    assert "deleted session 's' and 1000 B of KV checkpoints" in cap.stdout
    _, cap = run(disk_shell, "%agent clear")
    assert "and 1000 B of KV checkpoints" in cap.stdout and disk.files == {}


def test_a_store_set_by_config_takes_the_switches_along(
    shell: InteractiveShell, db: str, tmp_path: pathlib.Path
) -> None:
    run(shell, "%config AgentMagics.kv_disk_budget = 4096")
    run(shell, f"%config AgentMagics.store = {db!r}")
    runner = get_runner()
    assert runner.store.identity is not None
    assert runner.kv_checkpoints is True and runner.kv_disk_budget == 4096
    run(shell, "%config AgentMagics.kv_checkpoints = False")
    assert runner.kv_checkpoints is False
    other = f"sqlite:///{tmp_path / 'other.db'}"
    run(shell, f"%config AgentMagics.store = {other!r}")
    assert get_runner() is not runner and get_runner().kv_checkpoints is False


def test_ipython_config_sets_the_switches_of_the_runner_it_installs(
    shell: InteractiveShell, tmp_path: pathlib.Path
) -> None:
    from traitlets.config import Config

    shell.extension_manager.unload_extension("agent_nb")
    saved = shell.config
    config = Config()
    config.AgentMagics.store = f"sqlite:///{tmp_path / 'sessions.db'}"
    config.AgentMagics.kv_checkpoints = False
    config.AgentMagics.kv_disk_budget = 1 << 20
    shell.config = config
    try:
        shell.extension_manager.load_extension("agent_nb")
        runner = get_runner()
        assert runner.store.identity is not None
        assert runner.kv_checkpoints is False and runner.kv_disk_budget == 1 << 20
    finally:
        shell.extension_manager.unload_extension("agent_nb")
        shell.config = saved
        shell.extension_manager.load_extension("agent_nb")
