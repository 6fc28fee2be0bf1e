"""KV checkpoint files: where they live, what they claim, and the disk budget.

Layout under the checkpoint root (``~/.cache/agent_nb/kv/`` by default)::

    <model identity>/<store identity hash>/<session id>/<agent | ->/<count>-<hash>.safetensors

``count`` is how many token ids the cache holds and ``hash`` the start of the
SHA-256 of those ids, so a turn can tell from a name alone whether a file
holds a prefix of its prompt. The file is mlx-lm's ``save_prompt_cache``
format; its metadata repeats every part of the path in full (model, weights
dtype, store, session, key) plus the token ids themselves, and a load checks
all of it (`Header.matches`). A file is written under a temporary name that
starts with a dot (`temp_name`) and renamed into place, and only names that
`parse_name` accepts are ever read, so nobody -- this process or another
kernel on the same store -- loads a half-written file.

The model identity is a hash of the weights' files (their full contents,
hashed once per file version and remembered in ``models.json``), the weights'
dtype on this path, and the mlx / mlx-lm versions and device that computed
the cache: a checkpoint from any other model or numerics lives in another
folder and is never a candidate.

Least recently used goes first when the files pass the disk budget: a
checkpoint's mtime is set when it is written and again when it is loaded.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import pathlib
import re
import shutil
import struct
import sys
import uuid
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..._core.ids import SINGLE_TURN_PREFIX

__all__ = [
    "FORMAT",
    "CheckpointFile",
    "Header",
    "KeyParts",
    "all_files",
    "enforce_budget",
    "hash_tokens",
    "key_files",
    "parse_name",
    "read_header",
    "remove_stale_temps",
    "split_key",
    "store_hash",
    "temp_name",
    "unpack_tokens",
]

FORMAT = "agent_nb-kv-1"
_NAME = re.compile(r"([0-9]{1,9})-([0-9a-f]{16})\.safetensors")
_SESSION = re.compile(r"[A-Za-z0-9_.-]{1,128}")
_TEMP_PREFIX = ".tmp-"
#: No safetensors header of ours comes near this (the token ids are the bulk).
_MAX_HEADER = 64 << 20
_OWN_AGENT = "-"  # an agent name is an identifier, so this never collides


@dataclass(frozen=True)
class KeyParts:
    """A cache key ``SESSION`` or ``SESSION/AGENT``, split into folder names."""

    session: str
    agent: str  # `_OWN_AGENT` for the session's own agent

    def folder(self, root: pathlib.Path, model: str, store: str) -> pathlib.Path:
        return root / model / store / self.session / self.agent


def split_key(key: str) -> KeyParts | None:
    """The folders for ``key``; None for keys that are no stored session's
    (direct access, ``_st-`` single turns, anything not a valid id)."""
    session, _, agent = key.partition("/")
    if not _SESSION.fullmatch(session) or session in (".", ".."):
        return None
    if session.startswith(SINGLE_TURN_PREFIX):
        return None  # removed when its one turn ends: not worth a file
    if agent and not agent.isidentifier():
        return None
    return KeyParts(session, agent or _OWN_AGENT)


def hash_tokens(tokens: Sequence[int]) -> str:
    return hashlib.sha256(_pack(tokens)).hexdigest()


def _pack(tokens: Sequence[int]) -> bytes:
    packed = array("I", tokens)
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.tobytes()


def pack_tokens(tokens: Sequence[int]) -> str:
    return base64.b64encode(_pack(tokens)).decode("ascii")


def unpack_tokens(text: str) -> list[int]:
    packed = array("I")
    packed.frombytes(base64.b64decode(text.encode("ascii"), validate=True))
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.tolist()


def store_hash(store_identity: str) -> str:
    return hashlib.sha256(store_identity.encode()).hexdigest()[:16]


def file_name(tokens: Sequence[int]) -> str:
    return f"{len(tokens)}-{hash_tokens(tokens)[:16]}.safetensors"


def temp_name() -> str:
    """A name no reader accepts: a dot, the writer's pid, a random part."""
    return f"{_TEMP_PREFIX}{os.getpid()}-{uuid.uuid4().hex}.safetensors"


def parse_name(name: str) -> tuple[int, str] | None:
    """(token count, hash prefix) of a finished checkpoint's name, else None."""
    match = _NAME.fullmatch(name)
    return (int(match[1]), match[2]) if match else None


@dataclass(frozen=True)
class CheckpointFile:
    path: pathlib.Path
    count: int
    hash16: str
    size: int
    mtime: float

    def holds_prefix_of(self, tokens: Sequence[int]) -> bool:
        """Whether its ids are ``tokens[:count]``, from the name alone."""
        return self.count <= len(tokens) and hash_tokens(tokens[: self.count])[:16] == self.hash16


def _checkpoints_in(folder: pathlib.Path) -> Iterator[CheckpointFile]:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        parsed = parse_name(entry.name)
        if parsed is None:
            continue
        try:
            st = entry.stat()
        except OSError:  # removed meanwhile (another kernel's budget)
            continue
        yield CheckpointFile(
            pathlib.Path(entry.path), parsed[0], parsed[1], st.st_size, st.st_mtime
        )


def key_files(folder: pathlib.Path) -> list[CheckpointFile]:
    """One key's checkpoints, newest first."""
    return sorted(_checkpoints_in(folder), key=lambda f: f.mtime, reverse=True)


def all_files(root: pathlib.Path) -> list[CheckpointFile]:
    """Every checkpoint under ``root`` (all models, stores, sessions)."""
    found: list[CheckpointFile] = []
    for folder, _dirs, _files in os.walk(root):
        depth = len(pathlib.Path(folder).relative_to(root).parts)
        if depth == 4:  # model/store/session/agent
            found.extend(_checkpoints_in(pathlib.Path(folder)))
    return found


def unlink(path: pathlib.Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def enforce_budget(root: pathlib.Path, budget: int, keep: pathlib.Path | None = None) -> int:
    """Delete least recently used checkpoints until all fit in ``budget`` bytes.

    ``keep`` (the file just written) goes last. Returns the bytes removed.
    """
    files = sorted(all_files(root), key=lambda f: (f.path == keep, f.mtime))
    total = sum(f.size for f in files)
    removed = 0
    for f in files:
        if total <= budget:
            break
        unlink(f.path)
        total -= f.size
        removed += f.size
    return removed


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, someone else's
        return True
    return True


def remove_stale_temps(root: pathlib.Path) -> int:
    """Delete temporary files whose writer is gone (killed mid-write)."""
    removed = 0
    for folder, _dirs, names in os.walk(root):
        for name in names:
            if not name.startswith(_TEMP_PREFIX):
                continue
            pid = name[len(_TEMP_PREFIX) :].split("-", 1)[0]
            if pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
                unlink(pathlib.Path(folder) / name)
                removed += 1
    return removed


def remove_session(root: pathlib.Path, store: str, session: str) -> None:
    """Every checkpoint of ``session`` in ``store``, for every model."""
    try:
        models = list(os.scandir(root))
    except OSError:
        return
    for model in models:
        folder = pathlib.Path(model.path) / store / session
        if folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)


def bytes_by_session(root: pathlib.Path, store: str) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for f in all_files(root):
        parts = f.path.relative_to(root).parts
        if parts[1] == store:
            sizes[parts[2]] = sizes.get(parts[2], 0) + f.size
    return sizes


# -- headers ------------------------------------------------------------------


class CorruptCheckpoint(ValueError):
    """The file is not a whole checkpoint: it is deleted, the turn re-reads."""


@dataclass(frozen=True)
class Header:
    """What a checkpoint's safetensors header says about it."""

    meta: dict[str, str]
    classes: list[str]
    tokens: list[int]

    def mismatch(self, expected: dict[str, str], count: int, hash16: str) -> str | None:
        """Why this file is not the checkpoint its name and folder promise, or None."""
        for field, value in expected.items():
            if self.meta.get(field) != value:
                return f"{field} is {self.meta.get(field)!r}, not {value!r}"
        if len(self.tokens) != count or self.meta.get("count") != str(count):
            return "its token count differs from its name"
        if hash_tokens(self.tokens) != self.meta.get("tokens_sha256"):
            return "its token ids do not match their hash"
        if not self.meta["tokens_sha256"].startswith(hash16):
            return "its token hash differs from its name"
        if any(c != "KVCache" for c in self.classes):
            return f"it holds caches mlx-lm calls {sorted(set(self.classes))}"
        return None


def read_header(path: pathlib.Path) -> Header:
    """Parse the header without reading the arrays; checks that the file is whole.

    Raises `CorruptCheckpoint` for anything that is not a complete file of ours.
    """
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(8)
            if len(head) != 8:
                raise CorruptCheckpoint("shorter than a safetensors header")
            (length,) = struct.unpack("<Q", head)
            if not 0 < length <= min(_MAX_HEADER, size - 8):
                raise CorruptCheckpoint(f"header length {length} does not fit the file")
            raw: Any = json.loads(fh.read(length))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise CorruptCheckpoint(f"unreadable header ({exc})") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("__metadata__"), dict):
        raise CorruptCheckpoint("no metadata")
    flat: dict[str, Any] = raw.pop("__metadata__")
    end = 0
    for entry in raw.values():
        offsets = entry.get("data_offsets") if isinstance(entry, dict) else None
        if not (isinstance(offsets, list) and len(offsets) == 2):
            raise CorruptCheckpoint("a tensor entry without data offsets")
        end = max(end, int(offsets[1]))
    if size != 8 + length + end:
        raise CorruptCheckpoint(f"{size} bytes where the header promises {8 + length + end}")
    # save_prompt_cache flattens [metadata, classes, scalars] as "0.x", "1.i", "2.i.j"
    meta = {k[2:]: str(v) for k, v in flat.items() if k.startswith("0.")}
    classes = [
        str(flat[k])
        for k in sorted((k for k in flat if k.startswith("1.")), key=lambda k: int(k[2:]))
    ]
    if meta.get("format") != FORMAT or "tokens" not in meta:
        raise CorruptCheckpoint(f"not an {FORMAT} checkpoint")
    try:
        tokens = unpack_tokens(meta.pop("tokens"))
    except ValueError as exc:
        raise CorruptCheckpoint(f"unreadable token ids ({exc})") from exc
    return Header(meta, classes, tokens)


# -- model identity --------------------------------------------------------------
