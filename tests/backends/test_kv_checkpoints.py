"""KV checkpoints: a cache written to disk after its turn, resumed by a later process.

The restart is real where it matters (a fresh interpreter resumes what this process
wrote, `tests.kv_checkpoint_worker`); the other cases use a fresh `MLXBackend` in
this process, whose KV store starts empty as after a restart while the weights
stay loaded (they are shared per process). Greedy decoding, 12 new tokens a turn.
"""

from __future__ import annotations

import json
import os
import pathlib
import queue
import random
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from agent_nb import GenerationConfig
from agent_nb._core.types import Content, GenerateContentRequest
from agent_nb.backends import ScriptedBackend
from agent_nb.backends.mlx import MLXBackend
from agent_nb.backends.mlx import checkpoint_files as files
from agent_nb.backends.mlx.chat import common_prefix
from agent_nb.backends.mlx.checkpoints import Checkpoints
from agent_nb.backends.mlx.kv import KVSlot
from agent_nb.backends.mlx.model_identity import model_identity
from agent_nb.backends.mlx.runtime import mlx_thread
from tests.kv_checkpoint_worker import parse_result
from tests.streaming import collect

GREEDY = GenerationConfig(max_tokens=12)
STORE = "sqlite:///test.db|agent_nb|default"
#: About 90 prompt tokens: over `MIN_TOKENS`, cheap to prefill.
FIRST = "Explain in one sentence why the sky is blue. " * 6
SECOND = "And why is it red at sunset?"
ROOT = pathlib.Path(__file__).resolve().parents[2]

Factory = Callable[..., MLXBackend]


@pytest.fixture
def kv_dir(tmp_path: pathlib.Path) -> pathlib.Path:
    return tmp_path / "kv"


@pytest.fixture
def fresh(embedded_model_dir: pathlib.Path, kv_dir: pathlib.Path) -> Iterator[Factory]:
    """New backends on the loaded weights: each starts with no KV cache, as after a restart."""
    made: list[MLXBackend] = []

    def make(checkpoints: bool = True, **kwargs: Any) -> MLXBackend:
        backend = MLXBackend("smollm2-135m", progress=False, **kwargs)
        if checkpoints:
            assert backend.configure_checkpoints(store_identity=STORE, directory=kv_dir)
        made.append(backend)
        return backend

    yield make
    for backend in made:
        backend.close()
        backend.checkpoints_off()


@dataclass(frozen=True)
class Written:
    """What the first turn on cache ``s`` leaves: its reply and its checkpoint folder."""

    reply: str
    kv: pathlib.Path


@pytest.fixture(scope="module")
def written(embedded_model_dir: pathlib.Path, tmp_path_factory: pytest.TempPathFactory) -> Written:
    """The first turn, once: the tests that read its checkpoint get a copy of the folder
    (greedy, so every test's own first turn would write the same file)."""
    kv = tmp_path_factory.mktemp("written") / "kv"
    backend = MLXBackend("smollm2-135m", progress=False)
    assert backend.configure_checkpoints(store_identity=STORE, directory=kv)
    reply, _ = collect(backend, FIRST, GREEDY, cache="s")
    backend.close()
    backend.checkpoints_off()
    return Written(reply, kv)


def first_turn(written: Written, kv_dir: pathlib.Path) -> tuple[str, pathlib.Path]:
    """The first turn's reply, and its checkpoint copied into ``kv_dir``."""
    shutil.copytree(written.kv, kv_dir)
    (path,) = checkpoint_paths(kv_dir)
    return written.reply, path


def second_turn(first_reply: str) -> list[Content]:
    return [Content.user(FIRST), Content.model(first_reply), Content.user(SECOND)]


def checkpoint_paths(kv_dir: pathlib.Path) -> list[pathlib.Path]:
    return sorted(f.path for f in files.all_files(kv_dir))


def run_worker(mode: str, spec: dict[str, Any], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.kv_checkpoint_worker", mode, json.dumps(spec)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
    )


def worker_turns(spec: dict[str, Any], **env: str) -> dict[str, Any]:
    done = run_worker("turns", spec, **env)
    assert done.returncode == 0, done.stderr[-3000:]
    return parse_result(done.stdout)


# -- a real restart -------------------------------------------------------------------


@pytest.mark.mlx
def test_a_restarted_process_resumes_each_agents_cache_and_answers_the_same(
    fresh: Factory, kv_dir: pathlib.Path
) -> None:
    """Two keys (the session and one of its agents): this process writes, a fresh one
    resumes; a backend here that re-reads everything gives the same answers."""
    writer = fresh()
    firsts = {"chat": FIRST, "chat/helper": FIRST * 2}
    replies = {key: collect(writer, text, GREEDY, cache=key)[0] for key, text in firsts.items()}
    writer.close()  # flushes the checkpoints
    headers = [files.read_header(path) for path in checkpoint_paths(kv_dir)]
    held = {header.meta["key"]: header.tokens for header in headers}
    assert set(held) == set(firsts) and len(headers) == 2
    followups = [
        [key, [["user", text], ["model", replies[key]], ["user", SECOND]]]
        for key, text in firsts.items()
    ]
    spec: dict[str, Any] = {"dir": str(kv_dir), "store": STORE, "checkpoints": True}
    resumed = worker_turns({**spec, "turns": followups})
    # The same turns on a backend with no checkpoints, which re-reads everything (in
    # this process: a third interpreter and model load would add nothing to the claim).
    cold = fresh(checkpoints=False)
    for warm_turn, (key, messages) in zip(resumed["turns"], followups, strict=True):
        contents = [Content.user(t) if role == "user" else Content.model(t) for role, t in messages]
        cold_text, cold_finish = collect(cold, contents, GREEDY, cache=key)
        shared = min(common_prefix(held[key], warm_turn["prompt"]), len(warm_turn["prompt"]) - 1)
        assert warm_turn["text"] == cold_text
        assert cold_finish.usage.cached_tokens == 0
        # The whole first turn is reused, prompt and reply, as a warm cache would.
        assert warm_turn["cached"] == shared > len(held[key]) // 2
        assert warm_turn["fed"] == len(warm_turn["prompt"]) - shared
    figures = resumed["figures"]
    assert figures["kv_checkpoint_resumes"] == 2
    assert figures["kv_checkpoint_resumed_tokens"] == sum(t["cached"] for t in resumed["turns"])


# -- what a resume refuses ------------------------------------------------------------------


@pytest.mark.mlx
def test_a_corrupt_or_truncated_checkpoint_is_deleted_and_the_turn_rereads(
    fresh: Factory, kv_dir: pathlib.Path, written: Written
) -> None:
    reply, path = first_turn(written, kv_dir)
    expected, _ = collect(fresh(checkpoints=False), second_turn(reply), GREEDY, cache="s")
    data = path.read_bytes()
    for damaged in (data[: len(data) // 2], b"\x00" * 64, data[:8] + b"X" + data[9:]):
        path.write_bytes(damaged)
        after = fresh()
        text, finish = collect(after, second_turn(reply), GREEDY, cache="s")
        assert text == expected and finish.usage.cached_tokens == 0
        assert after.memory()["kv_checkpoint_corrupt_deleted"] == 1
        after.close()
        assert not path.exists()
        for written in checkpoint_paths(kv_dir):  # this turn's own checkpoint
            written.unlink()


def rewrite_metadata(path: pathlib.Path, **changes: str) -> None:
    """The same arrays under a header whose metadata says something else."""
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    header["__metadata__"].update({f"0.{k}": v for k, v in changes.items()})
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + data[8 + length :])


@pytest.mark.mlx
@pytest.mark.parametrize("field", ["model", "dtype", "store", "key"])
def test_a_checkpoint_of_another_model_dtype_store_or_key_is_never_loaded(
    fresh: Factory, kv_dir: pathlib.Path, written: Written, field: str
) -> None:
    reply, path = first_turn(written, kv_dir)
    held = files.read_header(path).tokens
    rewrite_metadata(path, **{field: "something-else"})
    after = fresh()
    assert after.checkpoints is not None
    assert resume_into_slot(after.checkpoints, after, "s", [*held, 1, 2]) == 0
    assert path.exists()  # not ours to judge: ignored, left to the disk budget
    _, finish = collect(after, second_turn(reply), GREEDY, cache="s")
    assert finish.usage.cached_tokens == 0
    assert after.memory()["kv_checkpoint_resumes"] == 0


def test_the_model_identity_follows_every_weights_byte_and_the_dtype(
    tmp_path: pathlib.Path,
) -> None:
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(bytes(4096))
    root = tmp_path / "kv"
    base = model_identity(model, "float32", "mlx 1", root)
    assert model_identity(model, "float32", "mlx 1", root) == base
    assert model_identity(model, "quantised", "mlx 1", root) != base
    assert model_identity(model, "float32", "mlx 2", root) != base
    (model / "model.safetensors").write_bytes(bytes(2048) + b"\x01" + bytes(2047))  # same size
    assert model_identity(model, "float32", "mlx 1", root) != base


@pytest.mark.mlx
def test_a_rewind_past_the_checkpoint_resumes_only_the_prefix_still_shared(
    fresh: Factory, kv_dir: pathlib.Path
) -> None:
    backend = fresh()
    reply, _ = collect(backend, FIRST, GREEDY, cache="s")
    collect(backend, second_turn(reply), GREEDY, cache="s")
    backend.close()
    (path,) = checkpoint_paths(kv_dir)  # the second turn's replaced the first's
    held = files.read_header(path).tokens
    # The cell re-run with another first question: only the start still matches.
    rewound = [Content.user("Explain in one sentence why grass is green. " * 6)]
    prompt = fresh(checkpoints=False).prompt_tokens(
        GenerateContentRequest(contents=tuple(rewound), config=GREEDY)
    )
    expected, _ = collect(fresh(checkpoints=False), rewound, GREEDY, cache="s")
    shared = common_prefix(held, prompt)
    assert 16 < shared < len(prompt) // 2
    after = fresh()
    text, finish = collect(after, rewound, GREEDY, cache="s")
    assert text == expected and finish.usage.cached_tokens == shared


# -- memory budget, deletion, figures ---------------------------------------------------------


@pytest.mark.mlx
def test_memory_eviction_keeps_a_checkpoint_that_a_later_turn_resumes(
    fresh: Factory, kv_dir: pathlib.Path
) -> None:
    backend = fresh(checkpoints=False)
    reply, _ = collect(backend, FIRST, GREEDY, cache="s")
    held = backend.cached_tokens("s")
    assert backend.configure_checkpoints(store_identity=STORE, directory=kv_dir)
    assert not checkpoint_paths(kv_dir)  # nothing written outside a turn...
    assert backend.trim_memory() > 0  # ...until the cache is evicted
    backend.close()
    assert backend.cache_bytes("s") == 0
    (path,) = checkpoint_paths(kv_dir)
    assert files.read_header(path).tokens == held
    request = GenerateContentRequest(contents=tuple(second_turn(reply)), config=GREEDY)
    prompt = backend.prompt_tokens(request)
    _, finish = collect(backend, second_turn(reply), GREEDY, cache="s")
    assert finish.usage.cached_tokens == min(common_prefix(held, prompt), len(prompt) - 1) > 0
    assert backend.memory()["kv_checkpoint_resumes"] == 1


@pytest.mark.mlx
def test_deleting_a_session_removes_its_agents_checkpoints_and_queued_writes(
    fresh: Factory, kv_dir: pathlib.Path
) -> None:
    backend = fresh()
    collect(backend, FIRST, GREEDY, cache="a")
    collect(backend, FIRST, GREEDY, cache="a/helper")
    collect(backend, FIRST, GREEDY, cache="b")
    backend.delete_checkpoints("a")  # the last writes may still be queued
    backend.close()
    sizes = backend.checkpoint_bytes()
    assert set(sizes) == {"b"} and sizes["b"] == sum(
        p.stat().st_size for p in checkpoint_paths(kv_dir)
    )
    assert backend.memory()["kv_disk_bytes"] == sizes
    collect(backend, FIRST, GREEDY, cache="_st-1234")  # a --once turn: never written
    collect(backend, FIRST, GREEDY, cache="direct:x")  # direct access: never written
    backend.close()
    assert set(backend.checkpoint_bytes()) == {"b"}


def test_switched_off_by_the_environment_and_a_no_op_elsewhere(
    monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path
) -> None:
    monkeypatch.setenv("AGENT_NB_KV_CHECKPOINTS", "0")
    backend = MLXBackend("smollm2-135m", progress=False)
    assert not backend.configure_checkpoints(store_identity=STORE, directory=tmp_path)
    assert backend.checkpoint_bytes() == {} and "kv_checkpoints" not in backend.memory()
    monkeypatch.setenv("AGENT_NB_KV_CHECKPOINTS", "yes")
    with pytest.raises(ValueError, match="AGENT_NB_KV_CHECKPOINTS must be 0 or 1"):
        backend.configure_checkpoints(store_identity=STORE, directory=tmp_path)
    scripted = ScriptedBackend()  # a server's cache (openai) is the server's: the same defaults
    assert not scripted.configure_checkpoints(store_identity=STORE, directory=tmp_path)
    scripted.delete_checkpoints("x")
    assert scripted.checkpoint_bytes() == {}
    assert not tmp_path.joinpath("kv").exists()


def test_the_disk_budget_removes_least_recently_used_first(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "m" / "s" / "sess" / "-"
    folder.mkdir(parents=True)
    paths = []
    for age, name in enumerate(["300-" + "a" * 16, "200-" + "b" * 16, "100-" + "c" * 16]):
        path = folder / f"{name}.safetensors"
        path.write_bytes(bytes(1000))
        os.utime(path, (1000.0 + age, 1000.0 + age))  # a: oldest ... c: newest
        paths.append(path)
    os.utime(paths[0], (2000.0, 2000.0))  # a was loaded since: most recently used
    (folder / files.temp_name()).write_bytes(bytes(5000))  # a write in progress: not counted
    assert files.enforce_budget(tmp_path, 2500) == 1000
    assert [p.exists() for p in paths] == [True, False, True]  # b went: least recently used
    assert files.enforce_budget(tmp_path, 1000, keep=paths[2]) == 1000
    assert [p.exists() for p in paths] == [False, False, True]  # the new file goes last
    assert files.enforce_budget(tmp_path, 1000) == 0


@pytest.mark.mlx
def test_a_load_counts_as_use_for_the_disk_budget(
    fresh: Factory, kv_dir: pathlib.Path, written: Written
) -> None:
    _, path = first_turn(written, kv_dir)
    os.utime(path, (1000.0, 1000.0))
    after = fresh()
    assert after.checkpoints is not None
    held = files.read_header(path).tokens
    assert resume_into_slot(after.checkpoints, after, "s", [*held, 1, 2]) == len(held)
    assert path.stat().st_mtime > 1000.0


# -- crashes and other kernels --------------------------------------------------------------


def resume_into_slot(
    checkpoints: Checkpoints, backend: MLXBackend, key: str, prompt: list[int]
) -> int:
    """A resume alone (no generation), as the next turn starts it."""
    slot = KVSlot(key)
    loaded = backend.load()
    return mlx_thread().call(lambda: checkpoints.resume(slot, prompt, loaded))


#: Writers killed per run: enough for several kills mid-write (the even rounds).
ROUNDS = 12


class WriterLines:
    """The writers' server's stdout, read by a thread as it comes, so that a wait for
    a line has a deadline and a stuck round fails with what was seen instead of
    hanging until pytest's timeout."""

    def __init__(self, stream: Any) -> None:
        self._lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._drain, args=(stream,), daemon=True).start()

    def _drain(self, stream: Any) -> None:
        for line in stream:
            self._lines.put(line.strip())
        self._lines.put("")  # the server ended

    def next_with(self, prefix: str, pid: int | None = None, timeout: float = 120) -> str:
        """The next line that starts with ``prefix`` (``WROTE`` lines pass by); ``pid``:
        the writer it is about, whose state a failure reports."""
        end = time.monotonic() + timeout
        while (left := end - time.monotonic()) > 0:
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                break
            assert line, f"the writers' server ended; last lines: {self.seen[-5:]}"
            self.seen.append(line)
            # a writer killed mid-line leaves "WROTE 485" without its newline, and the
            # server's next line runs on after it: "WROTE 485GONE 24920"
            at = line.find(prefix)
            if at == 0 or (at > 0 and line.startswith("WROTE")):
                return line[at:]
        about = f" (writer {pid}: {process_state(pid)})" if pid else ""
        raise AssertionError(f"no {prefix!r} in {timeout:.0f} s{about}; last: {self.seen[-5:]}")


def process_state(pid: int) -> str:
    """A process's state as the kernel sees it (``R``, ``S``, ``D``, ``Z``), for a message."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "gone"
    return "state " + stat.rsplit(")", 1)[1].split()[0]


@pytest.mark.mlx
def test_sigkill_during_writes_and_a_concurrent_reader(
    fresh: Factory, kv_dir: pathlib.Path
) -> None:
    """`ROUNDS` writer processes killed mid-write or at random moments while this one keeps
    resuming: it never meets a half-written file, and the next start is correct."""
    backend = fresh()
    # about 700 tokens, 32 MB: a write takes long enough to be killed in the middle
    first = [Content.user(FIRST * 8)]
    reply, _ = collect(backend, first, GREEDY, cache="s")
    backend.close()
    (written,) = checkpoint_paths(kv_dir)
    source = kv_dir.parent / "source.safetensors"  # out of the writers' reach (their budget)
    source.write_bytes(written.read_bytes())
    checkpoints = backend.checkpoints
    assert checkpoints is not None and checkpoints.model_identity is not None
    spec = {
        "dir": str(kv_dir),
        "store": STORE,
        "key": "s",
        "source": str(source),
        "model": checkpoints.model_identity,
        "weights": checkpoints.weights,
    }
    # a prompt that every file the writers make (prefixes of the source) matches
    prompt = [*files.read_header(source).tokens, 1, 2, 3]
    rng = random.Random(7)
    resumed = killed_mid_write = 0
    writers = subprocess.Popen(
        [sys.executable, "-m", "tests.kv_checkpoint_worker", "writers", json.dumps(spec)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert writers.stdin is not None and writers.stdout is not None
    lines = WriterLines(writers.stdout)  # drained all along: a full pipe never stalls a writer
    try:
        for round_ in range(ROUNDS):
            writers.stdin.write(f"{round_}\n")
            writers.stdin.flush()
            pid = int(lines.next_with("READY").split()[1])
            # Every writer runs until its first temporary file shows (however slow the
            # machine); then even rounds are killed at once, mid-write, and odd ones
            # at a random moment of the writes that follow.
            wait = 0.0 if round_ % 2 == 0 else rng.uniform(0.05, 0.6)
            give_up, deadline = time.monotonic() + 240, None
            while deadline is None or time.monotonic() < deadline:
                if deadline is None and any(kv_dir.rglob(f".tmp-{pid}-*")):
                    deadline = time.monotonic() + wait
                    continue
                assert time.monotonic() < give_up, "the writer wrote nothing in 240 s"
                resumed += resume_into_slot(checkpoints, backend, "s", prompt) > 0
            os.kill(pid, signal.SIGKILL)
            lines.next_with(f"GONE {pid}", pid=pid)
            # (the next writer's start removes what this one left)
            killed_mid_write += any(kv_dir.rglob(".tmp-*"))
    finally:
        writers.stdin.close()
        writers.wait(30)
    print(f"{killed_mid_write} of {ROUNDS} writers killed mid-write, {resumed} resumes meanwhile")
    assert killed_mid_write >= 2  # the rounds do test what they claim (most even ones)
    assert resumed and checkpoints.stats.corrupt_deleted == 0
    after = fresh()  # the next start: a dead writer's temporary file goes
    assert not any(kv_dir.rglob(".tmp-*"))
    for path in checkpoint_paths(kv_dir):
        header = files.read_header(path)  # whole, and what its name says
        assert header.tokens == prompt[: len(header.tokens)]
    turns = [*first, Content.model(reply), Content.user(SECOND)]
    expected, _ = collect(fresh(checkpoints=False), turns, GREEDY, cache="s")
    text, finish = collect(after, turns, GREEDY, cache="s")
    assert text == expected and finish.usage.cached_tokens > 0
    assert after.memory()["kv_checkpoint_corrupt_deleted"] == 0


@pytest.mark.mlx
def test_temporary_files_of_a_live_writer_are_never_loaded(
    fresh: Factory, kv_dir: pathlib.Path, written: Written
) -> None:
    reply, path = first_turn(written, kv_dir)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        # another kernel's write in progress: a whole file and a half one, under temp names
        for suffix, data in (("a", path.read_bytes()), ("b", path.read_bytes()[:1000])):
            temp = path.parent / f".tmp-{other.pid}-{suffix}.safetensors"
            temp.write_bytes(data)
        path.unlink()
        after = fresh()
        _, finish = collect(after, second_turn(reply), GREEDY, cache="s")
        assert finish.usage.cached_tokens == 0
        after.close()  # its own checkpoint of this turn written (its temp file renamed)
        assert len(list(path.parent.glob(".tmp-*"))) == 2  # their writer is alive: left alone
    finally:
        other.kill()
        other.wait()
