"""At most so many clients connected to a TCP port this process listens on, for a server
that has no such bound of its own (foxglove-sdk's WebSocket server): the connections beyond
are shut down.

:class:`ConnectionLimit` looks at the process's own sockets (``/proc/self/fd``: Linux), each
through a duplicate of its descriptor: a TCP socket bound to the port and connected to a
peer is a client.  The clients kept at the previous look stay; new ones are kept, oldest
descriptor first, while there is room; any other is shut down (both ways) on that
duplicate, so that the very socket looked at is the one shut down, even if its descriptor
number was closed and given to another file since.  The server sees its client gone and
closes the socket itself.
"""
import os
import socket
from typing import Callable, Dict, List, Optional, Tuple

#: the folder listing the process's open descriptors
FD_FOLDER = "/proc/self/fd"


class ConnectionLimit:
    """At most ``limit`` clients connected to ``port`` (see the module); ``refused(count,
    peers)`` is told of each look that shut connections down.  ``supported`` is False where
    the process cannot list its descriptors (then :meth:`enforce` does nothing)."""

    def __init__(self, port: int, limit: int,
                 refused: Callable[[int, List[str]], None]) -> None:
        self._port = port
        self._limit = limit
        self._refused = refused
        #: the clients kept, and those shut down that the server has not closed yet:
        #: socket inode ("socket:[N]") -> peer address
        self._kept: Dict[str, Tuple] = {}
        self._shut: Dict[str, Tuple] = {}
        self.supported = os.path.isdir(FD_FOLDER)

    @property
    def clients(self) -> int:
        """How many clients were connected at the last look (those kept)."""
        return len(self._kept)

    def _client(self, descriptor: str) -> Optional[Tuple[str, Tuple, socket.socket]]:
        """(inode, peer, duplicate socket) when ``descriptor`` is a client of the port."""
        try:
            target = os.readlink(os.path.join(FD_FOLDER, descriptor))
        except OSError:  # closed meanwhile
            return None
        if not target.startswith("socket:"):
            return None
        try:
            duplicate = socket.socket(fileno=os.dup(int(descriptor)))
        except OSError:
            return None
        try:
            if duplicate.family in (socket.AF_INET, socket.AF_INET6) \
                    and duplicate.type == socket.SOCK_STREAM \
                    and duplicate.getsockname()[1] == self._port:
                return target, duplicate.getpeername(), duplicate
        except OSError:  # not connected: the listening socket
            pass
        duplicate.close()
        return None

    def enforce(self) -> int:
        """Look at the connections now: shut down those beyond the limit; how many were."""
        if not self.supported:
            return 0
        found = [client for client in map(self._client, sorted(os.listdir(FD_FOLDER), key=int))
                 if client is not None]
        try:
            kept = {inode: peer for inode, peer, _ in found if self._kept.get(inode) == peer}
            shut = {inode: peer for inode, peer, _ in found if self._shut.get(inode) == peer}
            refused = []
            for inode, peer, duplicate in found:
                if inode in kept or inode in shut:
                    continue
                if len(kept) < self._limit:
                    kept[inode] = peer
                    continue
                try:
                    duplicate.shutdown(socket.SHUT_RDWR)
                except OSError:  # gone meanwhile
                    continue
                shut[inode] = peer
                refused.append("%s:%d" % peer[:2])
            self._kept, self._shut = kept, shut
        finally:
            for _, _, duplicate in found:
                duplicate.close()
        if refused:
            self._refused(len(kept), refused)
        return len(refused)
