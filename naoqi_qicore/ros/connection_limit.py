"""At most so many clients connected to a TCP port this process listens on, for a server
that has no such bound of its own (foxglove-sdk's WebSocket server): the connections beyond
are shut down, and so is a connection the server has sent nothing to for
``handshake_timeout`` seconds (a peer that opened it and never finished its request: it
would hold a place forever).

:class:`ConnectionLimit` looks at the process's own sockets (``/proc/self/fd``: Linux), each
through a duplicate of its descriptor: a TCP socket bound to the port and connected to a
peer is a client.  The clients kept at the previous look stay; new ones are kept, oldest
descriptor first, while there is room; any other is shut down (both ways) on that
duplicate, so that the very socket looked at is the one shut down, even if its descriptor
number was closed and given to another file since.  The server sees its client gone and
closes the socket itself.  What the server has sent is the kernel's count of the bytes the
peer acknowledged (``TCP_INFO``).
"""
import os
import socket
import struct
import time
from typing import Callable, Dict, List, Optional, Tuple

#: the folder listing the process's open descriptors
FD_FOLDER = "/proc/self/fd"
#: seconds a connection may stay without an answer from the server (its request unfinished)
HANDSHAKE_TIMEOUT = 10.0
#: where Linux's ``struct tcp_info`` has ``tcpi_bytes_acked`` (u64; since Linux 4.1)
_BYTES_ACKED = struct.Struct("=Q")
_BYTES_ACKED_OFFSET = 120
_TCP_INFO_SIZE = 232


def bytes_answered(connection: socket.socket) -> int:
    """How many bytes sent on ``connection`` its peer acknowledged."""
    info = connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_SIZE)
    if len(info) < _BYTES_ACKED_OFFSET + _BYTES_ACKED.size:
        return 1  # a kernel without the count: taken as answered
    return _BYTES_ACKED.unpack_from(info, _BYTES_ACKED_OFFSET)[0]


class ConnectionLimit:
    """At most ``limit`` clients connected to ``port`` (see the module); ``refused(count,
    peers)`` is told of each look that shut connections down.  ``supported`` is False where
    the process cannot list its descriptors (then :meth:`enforce` does nothing)."""

    def __init__(self, port: int, limit: int, refused: Callable[[int, List[str]], None],
                 handshake_timeout: float = HANDSHAKE_TIMEOUT,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._port = port
        self._limit = limit
        self._refused = refused
        self._handshake_timeout = handshake_timeout
        self._clock = clock
        #: the clients kept (socket inode "socket:[N]" -> (peer address, when first seen)),
        #: and those shut down that the server has not closed yet (inode -> peer address)
        self._kept: Dict[str, Tuple[Tuple, float]] = {}
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

    def _unanswered(self, first_seen: float, now: float, connection: socket.socket) -> bool:
        """Whether ``connection``, seen first at ``first_seen``, had its time to be answered
        and was not."""
        try:
            return now - first_seen >= self._handshake_timeout \
                and bytes_answered(connection) == 0
        except OSError:  # gone meanwhile
            return False

    def enforce(self) -> int:
        """Look at the connections now: shut down those beyond the limit and those left
        unanswered; how many were."""
        if not self.supported:
            return 0
        now = self._clock()
        found = [client for client in map(self._client, sorted(os.listdir(FD_FOLDER), key=int))
                 if client is not None]
        try:
            kept = {inode: self._kept[inode] for inode, peer, _ in found
                    if inode in self._kept and self._kept[inode][0] == peer}
            shut = {inode: peer for inode, peer, _ in found if self._shut.get(inode) == peer}
            refused = []
            for inode, peer, duplicate in found:
                if inode in shut:
                    continue
                if inode in kept and not self._unanswered(kept[inode][1], now, duplicate):
                    continue
                if inode not in kept and len(kept) < self._limit:
                    kept[inode] = (peer, now)
                    continue
                kept.pop(inode, None)
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
