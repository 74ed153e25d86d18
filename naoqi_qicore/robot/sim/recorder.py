"""The record of every call clients make to the simulated robot.

One entry per finished call, in the order calls finish::

    {"index": 0, "time": 1795394504.48, "duration": 0.3, "service": "ALMotion",
     "method": "angleInterpolationBezier", "args": [...], "post": false, "result": null}

``time`` is the wall-clock time (s) the call arrived.  A failed call has ``"error"`` (the
message) instead of ``"result"``.  A post-style call (``pCall("m", ...)``, what
``proxy.post.m(...)`` sends) is recorded as method ``m`` with ``"post": true`` and the task id
as result.  Values that JSON cannot hold (bytes, qi objects) are recorded as short strings.
Entries can also be appended to a JSON Lines file as they come.

Only the last :data:`DEFAULT_LIMIT` entries (``limit``) are kept in memory, each as its
compressed JSON text (motion calls carry long lists of numbers: about twenty times smaller
than the same values as Python objects), so that a robot serving for hours does not grow:
:meth:`CallRecord.since` returns what is kept, :meth:`CallRecord.dropped` says how many
older entries were let go; the file has them all.
"""
from __future__ import annotations

import json
import threading
import zlib
from collections import deque
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Deque, Dict, List, Optional

#: how many entries a record keeps in memory by default
DEFAULT_LIMIT = 10_000


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
        self._entries: Deque[bytes] = deque(maxlen=limit)  # compressed JSON, oldest first
        self._count = 0
        self._dropped = 0
        self._lock = threading.Lock()
        self._file = open(path, "a", encoding="utf-8") if path is not None else None
        self._listeners: List[Callable[[Dict[str, Any]], None]] = []

    def add(self, service: str, method: str, args: Any, started: float, duration: float,
            post: bool = False, result: Any = None, error: Optional[str] = None) -> Dict[str, Any]:
        """Append one finished call; returns its entry."""
        entry: Dict[str, Any] = {"time": started, "duration": duration, "service": service,
                                 "method": method, "args": plain(args), "post": post}
        if error is None:
            entry["result"] = plain(result)
        else:
            entry["error"] = error
        with self._lock:
            entry["index"] = self._count
            self._count += 1
            if len(self._entries) == self.limit:
                self._dropped += 1
            text = json.dumps(entry, separators=(",", ":"))
            self._entries.append(zlib.compress(text.encode("utf-8"), 1))
            if self._file is not None:
                self._file.write(text + "\n")
                self._file.flush()
            listeners = list(self._listeners)
        for listener in listeners:
            listener(entry)
        return entry

    def add_listener(self, listener: Callable[[Dict[str, Any]], None]) -> None:
        """Call ``listener(entry)`` for each new entry, in the thread that adds it (it must
        return quickly and not raise)."""
        with self._lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[Dict[str, Any]], None]) -> None:
        """Stop calling ``listener``."""
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def since(self, index: int = 0) -> List[Dict[str, Any]]:
        """Entries kept in memory whose index is >= ``index`` (entries dropped by the
        limit or by clear() are gone: see :meth:`dropped`)."""
        with self._lock:
            # kept entries have consecutive indexes, the newest is count - 1
            start = max(0, index - (self._count - len(self._entries)))
            texts = list(islice(self._entries, start, None))
        return [json.loads(zlib.decompress(text)) for text in texts]

    def count(self) -> int:
        """How many calls were recorded since the start (clear() does not reset it)."""
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
            self._entries.clear()

    def close(self) -> None:
        """Close the file, if any."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
