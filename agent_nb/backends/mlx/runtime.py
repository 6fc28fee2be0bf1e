"""The MLX thread, the process-wide model registry and model-spec resolution.

MLX streams are thread-local (mlx-lm #1179/#1256): arrays built on one
thread's stream and evaluated on another's can deadlock or crash. So every
piece of MLX work in agent_nb -- loading, prefill, decoding -- runs on one
daemon thread owned by this module, one job at a time. Jobs are plain
callables; their results come back as `concurrent.futures.Future`s.

At interpreter exit the thread is stopped by an ``atexit`` hook, which runs
before finalisation: a running generation sees `MLXThread.stopping` at its
next token and ends, the thread leaves its loop, and the hook waits until the
OS thread is really gone -- past its C++ thread-local destructors, which mlx
uses to release Python objects and which therefore take the GIL.
``Thread.join`` alone returns before those run. A thread whose destructors (or
whose last MLX job) meet a finalising interpreter is killed inside a
``noexcept`` destructor: ``terminate called without an active exception``,
exit code 134, after the script had printed its answer.

Models are loaded once per process and shared by every backend that names the
same folder or repo, so two runners (or a runner and a benchmark) never hold
two copies of the weights.

This thread is also where the process first imports ``mlx.core``, so it
settles the CPU BLAS just before (`cpu_blas`), and a model loaded on the
OpenBLAS path gets float32 weights (`weights`) for prefill while its
few-token passes keep reading the original 4/8-bit ones (`decode_kernel`).
"""

from __future__ import annotations

import atexit
import concurrent.futures
import json
import os
import pathlib
import queue
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ...errors import BackendError, ModelNotFoundError
from .cpu_blas import prepare_cpu_blas, take_hint

__all__ = [
    "EMBEDDED_ALIASES",
    "LoadedModel",
    "ModelSource",
    "load_model",
    "loaded_models",
    "mlx_call",
    "mlx_thread",
    "model_folder",
    "resolve_source",
    "window_from_files",
    "window_of",
]

T = TypeVar("T")

EMBEDDED_ALIASES = ("smollm2-135m", "smollm2", "smollm2-135m-instruct")
_HF_REPO = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")


class MLXThread:
    """One daemon thread that runs MLX jobs in order, with its own stream."""

    def __init__(self, name: str = "agent_nb-mlx") -> None:
        self._jobs: queue.SimpleQueue[tuple[concurrent.futures.Future[Any], Callable[[], Any]]]
        self._jobs = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._stop_lock = threading.Lock()
        self._stopping = False
        self.stream: Any = None
        self._thread.start()

    @property
    def stopping(self) -> bool:
        """True once `stop` was called: running jobs should end at their next check."""
        return self._stopping

    def is_current(self) -> bool:
        return threading.current_thread() is self._thread

    def submit(self, fn: Callable[[], T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._stop_lock:
            if self._stopping:
                future.set_exception(_stopped())
            else:
                self._jobs.put((future, fn))
        return future

    def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the MLX thread and wait (inline when already on it)."""
        if self.is_current():
            return fn()
        return self.submit(fn).result()

    def stop(self, timeout: float = 30.0) -> None:
        """Let the running job end (it sees `stopping`), fail queued ones, end the thread."""
        with self._stop_lock:
            if self._stopping:
                return
            self._stopping = True
            self._jobs.put(_STOP)
        if not self.is_current():
            deadline = time.monotonic() + timeout
            self._thread.join(timeout)
            _wait_until_gone(self._thread.native_id, deadline)

    def _main(self) -> None:
        while True:
            item = self._jobs.get()
            if item is _STOP:
                break
            future, fn = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                if self.stream is None:
                    prepare_cpu_blas()  # must come before the first mlx.core import
                    import mlx.core as mx

                    self.stream = mx.new_stream(mx.default_device())
                result = fn()
            except BaseException as exc:
                future.set_exception(exc)
            else:
                future.set_result(result)
        with self._stop_lock:  # nothing is queued after _STOP; fail what came before it
            while not self._jobs.empty():
                left = self._jobs.get_nowait()
                if left is not _STOP and left[0].set_running_or_notify_cancel():
                    left[0].set_exception(_stopped())


_STOP: Any = object()


def _wait_until_gone(native_id: int | None, deadline: float) -> None:
    """Wait for an OS thread that left Python to finish its thread-local destructors.

    Sleeping releases the GIL, which those destructors need. Linux lists live
    threads in /proc; elsewhere a short grace period stands in for that.
    """
    if native_id is None or not pathlib.Path("/proc/self/task").is_dir():
        time.sleep(0.05)
        return
    task = pathlib.Path(f"/proc/self/task/{native_id}")
    while task.exists() and time.monotonic() < deadline:
        time.sleep(0.001)


def _stopped() -> BackendError:
    return BackendError("the MLX thread has stopped (the interpreter is exiting)")


_thread: MLXThread | None = None
_thread_lock = threading.Lock()


def mlx_thread() -> MLXThread:
    """The process's MLX thread, started on first use and stopped at exit."""
    global _thread
    with _thread_lock:
        if _thread is None:
            _thread = MLXThread()
            atexit.register(_thread.stop)
        return _thread


def mlx_call(fn: Callable[[], T]) -> T:
    """``fn``, which reads model files and asks the device (no arrays shared with
    generation): on the MLX thread until that thread has settled the BLAS and
    imported ``mlx.core``, then right here, so that a window or a replay key never
    waits behind another session's generation."""
    thread = mlx_thread()
    if thread.stream is not None:
        return fn()
    return thread.call(fn)


# -- model specs -----------------------------------------------------------------


@dataclass(frozen=True)
class ModelSource:
    """What ``mlx:ARG`` names: the embedded model, a local folder or a Hub repo."""

    kind: str  # "embedded" | "local" | "hub"
    location: str

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.location}"


def _describe_missing(path: pathlib.Path) -> str:
    parent = path
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if path.is_dir():
        names = sorted(p.name for p in path.iterdir())[:12]
        return f"{path} exists but holds no config.json (it holds: {', '.join(names) or 'nothing'})"
    if path.exists():
        return f"{path} is a file, not an mlx-lm model folder"
    entries = sorted(p.name for p in parent.iterdir())[:12] if parent.is_dir() else []
    return (
        f"{path} does not exist (nearest existing folder: {parent}, holding: "
        f"{', '.join(entries) or 'nothing'})"
    )


def resolve_source(arg: str) -> ModelSource:
    """Turn the part after ``mlx:`` into a `ModelSource`, or say what would work."""
    if not isinstance(arg, str) or not arg.strip():
        raise ModelNotFoundError(
            "empty mlx model spec; use 'mlx:smollm2-135m', 'mlx:/path/to/mlx-model-dir' "
            "or 'mlx:org/hf-repo'"
        )
    if arg.lower() in EMBEDDED_ALIASES:
        return ModelSource("embedded", EMBEDDED_ALIASES[0])
    path = pathlib.Path(arg).expanduser()
    looks_local = arg.startswith(("/", "~", ".", os.sep)) or path.exists()
    if not looks_local and not _HF_REPO.fullmatch(arg):
        # A bare name: not a path, so the current folder's files are beside the point.
        raise ModelNotFoundError(
            f"no mlx model named {arg!r}. Built in: 'mlx:{EMBEDDED_ALIASES[0]}' (also "
            f"{', '.join(repr(a) for a in EMBEDDED_ALIASES[1:])}). For another model, point "
            "at its folder: 'mlx:/path/to/mlx-model-dir' (config.json, *.safetensors and "
            "tokenizer files, e.g. made by `mlx_lm.convert`), or 'mlx:org/hf-repo'."
        )
    if looks_local:
        if (path / "config.json").is_file():
            return ModelSource("local", str(path.resolve()))
        raise ModelNotFoundError(
            f"no mlx-lm model at {arg!r}: {_describe_missing(path)}. Point mlx: at a folder "
            "with config.json, *.safetensors and tokenizer files (e.g. made by "
            "`mlx_lm.convert`), use 'mlx:org/hf-repo', or the embedded 'mlx:smollm2-135m'."
        )
    return ModelSource("hub", arg)


# -- loading ------------------------------------------------------------------


@dataclass
class LoadedModel:
    source: ModelSource
    path: str
    model: Any
    tokenizer: Any
    config: dict[str, Any]
    cpu_blas: str | None = None  # "openblas" | "reference" | None (not the Linux CPU wheel)
    weights: str = "quantised"  # "quantised" or the dtype most weight bytes have
    weight_bytes: int = 0
    #: How few-token passes (decode steps) are computed: ``"mlx"`` (on the weights
    #: above), ``"kernel"`` (their matmuls on the original quantised weights, kept
    #: too: `decode_layers`) or ``"step"`` (whole passes, `decode_step`).
    decode: str = "mlx"
    decode_bytes: int = 0  # the extra bytes the kernel's quantised weights take


_models: dict[str, LoadedModel] = {}
_models_lock = threading.Lock()


def loaded_models() -> dict[str, LoadedModel]:
    with _models_lock:
        return dict(_models)


def _load_now(source: ModelSource, progress: bool) -> LoadedModel:
    from mlx_lm import load

    if source.kind == "embedded":
        from .embedded import ensure_embedded_model

        location = str(ensure_embedded_model(progress=progress))
    else:
        location = source.location
    try:
        result: Any = load(location, return_config=True)
        model, tokenizer, config = result
    except Exception as exc:
        if source.kind != "hub":
            raise BackendError(
                f"mlx-lm could not load the model in {location} ({exc}); check that the folder "
                "holds a complete mlx-lm model (config.json, *.safetensors, tokenizer files)"
            ) from exc
        raise ModelNotFoundError(
            f"could not load {location!r} from the Hugging Face Hub ({exc}). Download it "
            f"where the Hub is reachable (`huggingface-cli download {location}`) and use "
            "'mlx:/path/to/that/folder', or use the embedded 'mlx:smollm2-135m'."
        ) from exc
    model.eval()
    return _settle_weights(LoadedModel(source, location, model, tokenizer, dict(config)))


def _settle_weights(loaded: LoadedModel) -> LoadedModel:
    """float32 weights on the OpenBLAS path (see `weights`); the hint once if slow."""
    import mlx.core as mx

    from .cpu_attention import install
    from .decode_kernel import decode_kernel
    from .decode_layers import remember_quantised
    from .weights import dequantise_to_float32, weight_bytes, weight_format

    blas = prepare_cpu_blas()
    if mx.default_device() == mx.cpu:
        loaded.cpu_blas = blas.blas
        install(loaded.model)  # numpy softmax for long prompts (`cpu_attention`)
        if blas.fast:
            # The embedded model's folder is agent_nb's own: its float32 weights are
            # kept beside it. Another model's could take gigabytes nobody asked for.
            embedded = loaded.source.kind == "embedded"
            kernel, _ = decode_kernel()
            remembered = remember_quantised(loaded.model) if kernel is not None else {}
            folder = pathlib.Path(loaded.path) if embedded else None
            if dequantise_to_float32(loaded.model, folder) and kernel is not None:
                _decode_on_kernel(loaded, remembered, kernel)
        hint = take_hint()
        if hint:
            print(hint, file=sys.stderr, flush=True)
    loaded.weights = weight_format(loaded.model)
    loaded.weight_bytes = weight_bytes(loaded.model)
    return loaded


def _decode_on_kernel(loaded: LoadedModel, remembered: dict[str, Any], kernel: Any) -> None:
    """float32 weights for prefill, the original 4/8-bit ones for few-token passes:
    layer by layer (`decode_layers`), or whole passes for a llama (`decode_step`)."""
    from .decode_layers import attach_quantised
    from .decode_step import attach_step

    if attach_quantised(loaded.model, remembered, kernel):
        loaded.decode = "step" if attach_step(loaded.model, kernel) else "kernel"
        loaded.decode_bytes = sum(m.nbytes for m in remembered.values())


def load_model(source: ModelSource, *, progress: bool = True) -> LoadedModel:
    """The loaded model for ``source``; loads it (on the MLX thread) the first time."""
    with _models_lock:
        found = _models.get(source.key)
    if found is not None:
        return found

    def job() -> LoadedModel:
        with _models_lock:
            again = _models.get(source.key)
        if again is not None:
            return again
        loaded = _load_now(source, progress)
        with _models_lock:
            _models[source.key] = loaded
        return loaded

    return mlx_thread().call(job)


def model_folder(source: ModelSource, *, progress: bool = True) -> pathlib.Path | None:
    """The local folder ``source`` loads from, with no weights read (None: a Hub repo,
    whose files are only known after a download). Converts the embedded model if
    it never was (`ensure_embedded_model`)."""
    if source.kind == "embedded":
        from .embedded import ensure_embedded_model

        return ensure_embedded_model(progress=progress)
    if source.kind == "local":
        return pathlib.Path(source.location)
    return None


def _window(configured: object, tokenizer_limit: object) -> int | None:
    value = configured
    if not isinstance(value, int) or value < 1:
        value = tokenizer_limit
    # The huge sentinel transformers uses for "no limit" is no window.
    return value if isinstance(value, int) and 0 < value < 10**8 else None


def window_of(loaded: LoadedModel) -> int | None:
    """A model's context window: ``max_position_embeddings`` from its config, else
    the tokenizer's ``model_max_length`` (ignoring the huge "no limit" sentinel)."""
    # mlx-lm's TokenizerWrapper forwards unknown attributes to the HF tokenizer.
    limit = getattr(loaded.tokenizer, "model_max_length", None)
    return _window(loaded.config.get("max_position_embeddings"), limit)


def _json_file(path: pathlib.Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def window_from_files(folder: pathlib.Path) -> int | None:
    """`window_of` read from the folder's ``config.json`` and ``tokenizer_config.json``,
    before any weights or tokenizer load (a replayed turn needs neither)."""
    config = _json_file(folder / "config.json")
    tokenizer = _json_file(folder / "tokenizer_config.json")
    return _window(config.get("max_position_embeddings"), tokenizer.get("model_max_length"))
