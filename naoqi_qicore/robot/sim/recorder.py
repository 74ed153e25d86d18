"""The record of what the simulated robot did: every call clients make, and what it does of
its own accord.

One entry per call, in the order calls start::

    {"index": 0, "time": 1795394504.48, "service": "ALMotion",
     "method": "angleInterpolationBezier", "args": [...], "post": false,
     "end": 1795394504.78, "duration": 0.3, "result": null}

``time`` is the wall-clock time (s) the call arrived; ``end`` (the wall-clock time it ended),
``duration`` (s) and ``result`` are added when it ends (a call still running has none of
them).  A failed call has ``"error"`` (the message) instead of ``"result"``.  A post-style
call (``pCall("m", ...)``, what ``proxy.post.m(...)`` sends) is recorded as method ``m`` with
``"post": true`` and the task id as result.  What the robot does of its own accord (the
sentences, animations and variables of ALDialog's answers, the services a topic calls, the
animations of an animated speech) is recorded as the calls it amounts to, marked
``"own": true``.  Values that JSON cannot hold (bytes, qi objects) are recorded as short
strings.

A JSON Lines file can receive the record as it happens: a line when a call starts (its entry
so far) and a line when it ends (``{"index": 0, "end": ..., "duration": 0.3, "result":
null}``); :func:`read_calls` puts them back together.

Only the last :data:`DEFAULT_LIMIT` entries (``limit``) are kept in memory, as compressed
JSON text, :data:`BLOCK` consecutive entries compressed together (motion calls carry long
lists of numbers: about twenty times smaller than the same values as Python objects; the
calls a client makes over and over, such as the joint readings behind ``joint_states`` at
150 calls/s, look alike: together they compress about three times better than one by
one), so that a robot serving for hours does not grow: :meth:`CallRecord.since` returns
what is kept, :meth:`CallRecord.dropped` says how many older entries were let go; the file
has them all.
"""
from __future__ import annotations

import json
import threading
import time
import zlib
from collections import deque
from pathlib import Path
from typing import Any, Callable, Deque, Dict, List, Optional

#: how many entries a record keeps in memory by default
DEFAULT_LIMIT = 10_000
#: how many consecutive entries are compressed together
BLOCK = 64


def plain(value: Any) -> Any:
    """``value`` with only JSON types (lists, str-keyed dicts, numbers, strings, None)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "<%d bytes>" % len(value)
    return "<%s>" % type(value).__name__


class CallRecord:
    """Thread-safe ring of the last ``limit`` call entries, optionally mirrored (all of
    them) to a JSON Lines file."""

    def __init__(self, path: Optional[Path] = None, limit: int = DEFAULT_LIMIT) -> None:
        if limit < 1:
            raise ValueError("the record must keep at least one call, got %r" % limit)
        self.limit = limit
        #: full blocks of :data:`BLOCK` entries, oldest first, each its JSON lines compressed
        self._blocks: Deque[bytes] = deque()
        #: the JSON texts of the newest entries (fewer than :data:`BLOCK`)
        self._open: List[str] = []
        self._first = 0  # index of the first entry of the oldest block (or of _open)
        self._low = 0  # index of the oldest entry kept (older ones: let go or cleared)
        self._count = 0
        self._dropped = 0
        self._running: Dict[int, float] = {}  # index -> monotonic start, of running calls
        self._lock = threading.Lock()
        self._file = open(path, "a", encoding="utf-8") if path is not None else None
        self._listeners: List[Callable[[Dict[str, Any]], None]] = []

    def start(self, service: str, method: str, args: Any, post: bool = False,
              own: bool = False) -> int:
        """Record a call that starts now (``own``: the robot does it of its own accord);
        returns its index, for :meth:`end`."""
        entry: Dict[str, Any] = {"time": time.time(), "service": service, "method": method,
                                 "args": plain(args), "post": post}
        if own:
            entry["own"] = True
        with self._lock:
            entry["index"] = index = self._count
            self._count += 1
            self._running[index] = time.monotonic()
            if self._count - self._low > self.limit:
                self._low += 1
                self._dropped += 1
            text = json.dumps(entry, separators=(",", ":"))
            self._open.append(text)
            if len(self._open) == BLOCK:
                self._blocks.append(_compressed(self._open))
                self._open = []
            while self._blocks and self._first + BLOCK <= self._low:
                self._blocks.popleft()
                self._first += BLOCK
            self._write(text)
        return index

    def end(self, index: int, result: Any = None, error: Optional[str] = None) -> None:
        """Add the end of call ``index`` (its ``result``, or its ``error`` message) to its
        entry, then tell the listeners about the whole entry."""
        ended: Dict[str, Any] = {"index": index, "end": time.time()}
        with self._lock:
            begin = self._running.pop(index, None)
            if begin is None:
                raise ValueError("call %d of the record is not running" % index)
            ended["duration"] = time.monotonic() - begin
            if error is None:
                ended["result"] = plain(result)
            else:
                ended["error"] = error
            self._write(json.dumps(ended, separators=(",", ":")))
            if index < self._low:  # let go meanwhile: only the file and the listeners see it
                entry = dict(ended)
            else:
                entry = self._update(index, ended)
            listeners = list(self._listeners)
        for listener in listeners:
            listener(entry)

    def _update(self, index: int, ended: Dict[str, Any]) -> Dict[str, Any]:
        """Add ``ended`` to the kept entry ``index`` (lock held); the whole entry."""
        block, position = divmod(index - self._first, BLOCK)
        texts = self._open if block == len(self._blocks) else _texts(self._blocks[block])
        entry = json.loads(texts[position])
        entry.update(ended)
        texts[position] = json.dumps(entry, separators=(",", ":"))
        if texts is not self._open:
            self._blocks[block] = _compressed(texts)
        return entry

    def _write(self, line: str) -> None:
        """Append ``line`` to the file, if any (lock held)."""
        if self._file is not None:
            self._file.write(line + "\n")
            self._file.flush()

    def add_listener(self, listener: Callable[[Dict[str, Any]], None]) -> None:
        """Call ``listener(entry)`` with the whole entry of each call that ends, in the
        thread that ends it (it must return quickly and not raise)."""
        with self._lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[Dict[str, Any]], None]) -> None:
        """Stop calling ``listener``."""
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def since(self, index: int = 0) -> List[Dict[str, Any]]:
        """Entries kept in memory whose index is >= ``index``, running calls included
        (entries dropped by the limit or by clear() are gone: see :meth:`dropped`)."""
        with self._lock:
            start = max(index, self._low)
            first, blocks, texts = self._first, list(self._blocks), list(self._open)
        skipped = min(len(blocks), (start - first) // BLOCK)  # blocks all before start
        first += skipped * BLOCK
        kept: List[str] = []
        for block in blocks[skipped:]:
            kept += _texts(block)
        kept += texts
        return [json.loads(text) for text in kept[max(0, start - first):]]

    def count(self) -> int:
        """How many calls started since the start of the record (clear() does not reset
        it)."""
        with self._lock:
            return self._count

    def dropped(self) -> int:
        """How many of the oldest entries were let go to keep at most ``limit`` in memory
        (those clear() forgot are not counted)."""
        with self._lock:
            return self._dropped

    def clear(self) -> None:
        """Forget the entries kept in memory (the file keeps them)."""
        with self._lock:
            self._blocks.clear()
            self._open = []
            self._first = self._low = self._count

    def close(self) -> None:
        """Close the file, if any."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


def _compressed(texts: List[str]) -> bytes:
    """The JSON texts of a block of entries, compressed together."""
    return zlib.compress("\n".join(texts).encode("utf-8"))


def _texts(block: bytes) -> List[str]:
    """The JSON texts of a block :func:`_compressed` made."""
    return zlib.decompress(block).decode("utf-8").split("\n")


def read_calls(path: Path) -> List[Dict[str, Any]]:
    """The entries a record wrote to the JSON Lines file ``path``, each call's start and end
    lines put together, in the order calls started (a call still running has no ``end``;
    a line being written is left out)."""
    entries: Dict[int, Dict[str, Any]] = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            try:
                item = json.loads(line)
            except ValueError:
                continue  # the line being written
            if "service" in item:
                entries[item["index"]] = item
            elif item.get("index") in entries:
                entries[item["index"]].update(item)
    return [entries[index] for index in sorted(entries)]
