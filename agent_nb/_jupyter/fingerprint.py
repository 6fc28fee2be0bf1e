"""`fingerprint`: a cheap digest of a notebook value, to tell whether it changed.

After every cell, each ``%%agent`` answer's inputs are fingerprinted again
(`staleness`), so this must cost little even for a large DataFrame (the
target is 5 ms for 10⁶ rows), and it must not hold the value alive. The price
is a stated blind spot, not a guess:

* **DataFrame / Series**: the type, shape, column names and dtypes; a hash of
  a sample of at most `SAMPLE_ROWS` rows, evenly spaced (first and last
  included), index labels included; and the whole index: a ``RangeIndex`` by
  its start, stop and step, any other by its dtype (a time zone included) and
  a numeric or datetime index by two checksums of
  all its values (sum and xor; the sample's labels catch a reordering), any
  other index by a sample as the rows. A change confined to cells of rows outside the sample,
  with shape, dtypes and index as they were, is **not** seen.
* **NumPy arrays**: shape, dtype and a hash of at most `SAMPLE_ROWS` evenly
  spaced elements (all of a small array).
* **str, bytes, numbers, None**: the value itself (hashed).
* **pathlib paths** (``--data`` files): the path and, for each file it names
  (a glob included), its size and modification time, so a file rewritten in
  place is seen. A path held as a ``str`` is only its text.
* **lists, tuples, dicts, sets**: the length and the fingerprints of at most
  `SAMPLE_ROWS` items (sets and dicts in their own order), nested three deep.
* **anything else**: the type and the object's identity, so a rebinding is
  seen (``x = Thing()`` again), a change inside the same object is not.
"""

from __future__ import annotations

import glob
import hashlib
import os
import pathlib
import sys
from typing import Any

__all__ = ["SAMPLE_ROWS", "fingerprint"]

SAMPLE_ROWS = 1000
_DEPTH = 3


def fingerprint(value: Any) -> str:
    """A short hex digest of ``value`` (see the module docstring)."""
    digest = hashlib.blake2b(digest_size=16)
    _feed(digest, value, _DEPTH)
    return digest.hexdigest()


def _feed(digest: Any, value: Any, depth: int) -> None:
    kind = type(value)
    digest.update(f"{kind.__module__}.{kind.__qualname__}|".encode())
    if value is None or isinstance(value, (bool, int, float, complex)):
        digest.update(repr(value).encode())
    elif isinstance(value, str):
        digest.update(value.encode("utf-8", "surrogatepass"))
    elif isinstance(value, (bytes, bytearray, memoryview)):
        digest.update(bytes(value))
    elif isinstance(value, pathlib.PurePath):
        _path(digest, value)
    elif _is_pandas(value):
        _pandas(digest, value)
    elif _is_array(value):
        _array(digest, value)
    elif isinstance(value, (list, tuple, dict, set, frozenset)) and depth > 0:
        items: list[Any] = list(value.items()) if isinstance(value, dict) else list(value)
        digest.update(f"{len(items)}|".encode())
        for item in _spaced(items):
            _feed(digest, item, depth - 1)
    else:
        digest.update(f"id {id(value)}".encode())


def _path(digest: Any, path: pathlib.PurePath) -> None:
    text = os.path.expanduser(str(path))
    digest.update(text.encode("utf-8", "surrogatepass"))
    for name in sorted(glob.glob(text)) if any(c in text for c in "*?[") else [text]:
        try:
            stat = os.stat(name)
        except OSError:
            continue  # not there (yet): the text alone
        digest.update(f"|{name}|{stat.st_size}|{stat.st_mtime_ns}".encode())


def _spaced(items: list[Any]) -> list[Any]:
    if len(items) <= SAMPLE_ROWS:
        return items
    step = (len(items) - 1) / (SAMPLE_ROWS - 1)
    return [items[round(i * step)] for i in range(SAMPLE_ROWS)]


def _is_pandas(value: Any) -> bool:
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, (pandas.DataFrame, pandas.Series))


def _is_array(value: Any) -> bool:
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.ndarray)


def _positions(n: int) -> Any:
    import numpy as np

    if n <= SAMPLE_ROWS:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, SAMPLE_ROWS).astype(np.int64))


def _pandas(digest: Any, value: Any) -> None:
    import pandas as pd

    digest.update(repr(value.shape).encode())
    if isinstance(value, pd.DataFrame):
        digest.update(repr([(str(c), str(t)) for c, t in value.dtypes.items()]).encode())
    else:
        digest.update(f"{value.name!r}|{value.dtype}".encode())
    sample = value.iloc[_positions(len(value))]
    try:
        digest.update(pd.util.hash_pandas_object(sample, index=True).to_numpy().tobytes())
    except TypeError:  # unhashable cells (lists, dicts): their text instead
        digest.update(sample.to_string().encode())
    _index(digest, value.index)


def _index(digest: Any, index: Any) -> None:
    import numpy as np
    import pandas as pd

    if isinstance(index, pd.RangeIndex):
        digest.update(f"range {index.start} {index.stop} {index.step}".encode())
        return
    # the index's own dtype: a tz change keeps the instants and changes the meaning
    digest.update(f"index dtype {index.dtype}|".encode())
    values = index.to_numpy() if not isinstance(index, pd.MultiIndex) else None
    if values is not None and values.dtype.kind in "biufmM":
        ints = values.view(np.int64) if values.dtype.itemsize == 8 else values.astype(np.int64)
        if values.dtype.kind == "f":
            ints = values.astype(np.float64).view(np.int64)
        # order is in the row sample (its index labels); these see any value changed
        checks = (int(ints.sum(dtype=np.int64)), int(np.bitwise_xor.reduce(ints)))
        digest.update(f"index {values.dtype} {checks}".encode())
        return
    sample = index[_positions(len(index))]
    digest.update(pd.util.hash_pandas_object(sample, index=False).to_numpy().tobytes())


def _array(digest: Any, value: Any) -> None:
    digest.update(f"{value.shape}|{value.dtype}".encode())
    flat = value.reshape(-1)
    sample = flat if flat.size <= SAMPLE_ROWS else flat[_positions(flat.size)]
    if sample.dtype.kind == "O":
        digest.update(repr(sample.tolist()).encode())
    else:
        digest.update(sample.tobytes())
