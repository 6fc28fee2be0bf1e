"""What is derived from a table's data alone, computed once per table *content*.

Profiling a table (roles, words, values: `table.profile`) costs more than
planning a question over it, and a notebook asks many questions of the same
table. `profiled` keeps the profile and `derived` anything else computed from
the data alone (the facts of `insights.compute_insights`), and gives them back
for the next question, in this kernel, while the table is the same:

* **the same object**: the entry is keyed by the DataFrame's identity and
  held by a weak reference, so a rebinding (``sales = other``) is another
  key, and a table the user deleted takes its entry with it (the cache
  never holds the user's frame alive);
* **the same content**: `content_key` digests the shape, the column names
  and dtypes, the index, ``attrs["context"]`` and *every* value (not a
  sample), so a change made in place (``sales.loc[3, "units"] = 0``,
  ``sales["units"] *= 2``) gives a fresh profile. Numbers, dates and
  booleans are digested from their bytes (CRC-32, about 1 GB/s), and so is
  text held by Arrow (pandas' default), from its buffers; other text and
  objects through pandas' own hashing (`pandas.util.hash_array`), and a
  cell pandas cannot hash (a list, a dict) by its ``repr``. A change goes
  unseen only if it leaves every column's CRC-32 as it was (odds of 2⁻³²
  for each changed column).

The digest reads every value once, so it is cheap beside a profile for the
tables people ask about (a tenth of it at a few thousand rows) and about as
costly as one at 10⁶ rows (`benchmarks/bench_profile_cache.py` prints both).
Only a handful of tables are kept (`MAX_TABLES`), the least recently asked
dropped first.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import threading
import weakref
import zlib
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeVar

from .table import Table, profile

__all__ = ["MAX_TABLES", "clear", "content_key", "derived", "profiled"]

MAX_TABLES = 16

T = TypeVar("T")


def _crc(values: Any) -> bytes:
    import numpy as np
    import pandas as pd

    if isinstance(values, pd.arrays.ArrowExtensionArray):  # pandas' default text since 3.0
        return _arrow_crc(values.__arrow_array__())
    if isinstance(values.dtype, pd.StringDtype):  # pandas' text array, as its str objects:
        values = values.to_numpy(dtype=object)  # hashed directly, not factorized (twice as fast)
    if isinstance(values, np.ndarray) and values.dtype.kind in "biufcmM":
        raw = np.ascontiguousarray(values).view(np.uint8)
    else:
        try:
            raw = pd.util.hash_array(values, categorize=False).view(np.uint8)
        except (TypeError, ValueError):  # cells pandas cannot hash (lists, dicts)
            texts = np.array([repr(v) for v in np.asarray(values, dtype=object)], dtype=object)
            raw = pd.util.hash_array(texts, categorize=False).view(np.uint8)
    return b"%d|%d|" % (len(values), zlib.crc32(raw.data))


def _arrow_crc(chunked: Any) -> bytes:
    """An Arrow column's digest from its buffers as they lie (validity, offsets, data,
    and a nested type's children): about 30 times faster than hashing its values as
    Python strings. Equal values laid out otherwise digest otherwise, which only costs
    a fresh profile; a changed value always changes a buffer."""
    crc = zlib.crc32(str(chunked.type).encode())
    for chunk in chunked.chunks:
        crc = zlib.crc32(b"%d %d|" % (chunk.offset, len(chunk)), crc)
        for buffer in chunk.buffers():
            if buffer is not None:
                crc = zlib.crc32(memoryview(buffer), crc)
    return b"%d|%d|" % (len(chunked), crc)


def _index_key(index: Any) -> bytes:
    import pandas as pd

    head = f"{type(index).__name__}|{index.dtype}|{list(index.names)!r}|".encode()
    if isinstance(index, pd.RangeIndex):
        return head + f"{index.start} {index.stop} {index.step}".encode()
    if isinstance(index, pd.MultiIndex):
        return head + b"".join(_crc(index.get_level_values(i).array) for i in range(index.nlevels))
    return head + _crc(_values(index))


def _values(values: Any) -> Any:
    """A Series' or an Index's values: a NumPy array where its dtype is NumPy's, else the
    pandas array (a categorical hashed by its values, not its codes)."""
    import numpy as np

    return values.to_numpy() if isinstance(values.dtype, np.dtype) else values.array


def content_key(df: Any) -> bytes:
    """A digest of everything in ``df`` a profile reads (see the module docstring)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{df.shape}|{[(repr(c), str(t)) for c, t in df.dtypes.items()]!r}|".encode())
    digest.update(f"{df.columns.names!r}|{df.attrs.get('context')!r}|".encode())
    digest.update(_index_key(df.index))
    for i in range(df.shape[1]):
        digest.update(_crc(_values(df.iloc[:, i])))  # by position: duplicate names stay apart
    return digest.digest()


@dataclasses.dataclass
class _Entry:
    ref: weakref.ref[Any]
    content: bytes
    kept: dict[Hashable, Any]


_ENTRIES: OrderedDict[int, _Entry] = OrderedDict()
_LOCK = threading.Lock()  # turns compute on worker threads (`asyncio.to_thread`)


def _forget(key: int, ref: weakref.ref[Any]) -> None:
    with _LOCK:
        entry = _ENTRIES.get(key)
        if entry is not None and entry.ref is ref:
            del _ENTRIES[key]


def derived(df: Any, what: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, or what it gave for ``what`` over ``df`` while ``df`` is the same
    object with the same content (see the module docstring). ``compute`` must read
    nothing but ``df`` and what ``what`` names, and must not return ``df`` itself."""
    return _derived(df, content_key(df), what, compute)


def _derived(df: Any, content: bytes, what: Hashable, compute: Callable[[], T]) -> T:
    key = id(df)
    with _LOCK:
        entry = _ENTRIES.get(key)
        if entry is not None and entry.ref() is df and entry.content == content:
            _ENTRIES.move_to_end(key)
            if what in entry.kept:
                kept: T = entry.kept[what]
                return kept
    value = compute()
    with _LOCK:
        entry = _ENTRIES.get(key)
        if entry is None or entry.ref() is not df or entry.content != content:
            ref = weakref.ref(df, functools.partial(_forget, key))
            entry = _ENTRIES[key] = _Entry(ref, content, {})
        entry.kept[what] = value
        _ENTRIES.move_to_end(key)
        while len(_ENTRIES) > MAX_TABLES:
            _ENTRIES.popitem(last=False)
    return value


def profiled(name: str, df: Any, context: Mapping[str, Any] | None = None) -> Table:
    """`table.profile` of ``df``, computed once while ``df`` and its content stay the same.

    The kept profile never holds ``df`` itself (the weak reference would never
    die): where the profile's frame is the user's, it is put back on the way out.
    """
    import pandas as pd

    from .engines.sources import Source

    if isinstance(df, Source):  # a file or a database table: profiled by its engine
        from .engines.profile import profile_source

        return profile_source(name, df, context)
    if not isinstance(df, pd.DataFrame):
        return profile(name, df, context)  # the one-line TypeError

    content = content_key(df)

    def compute() -> Table:
        table = dataclasses.replace(profile(name, df, context), key=content)
        return dataclasses.replace(table, df=None) if table.df is df else table

    kept = _derived(df, content, ("profile", name, repr(context)), compute)
    return kept if kept.df is not None else dataclasses.replace(kept, df=df)


def clear() -> None:
    """Forget every kept profile (a test, or a user who wants the memory back)."""
    with _LOCK:
        _ENTRIES.clear()
