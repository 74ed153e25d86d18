"""Where the simulated robot listens: the listen URLs it takes and the loopback check.

The simulated robot listens only on loopback unless told otherwise (``allow_remote``), and its
ALPythonBridge evaluates code only while every address it listens on is loopback: both ask
:func:`endpoints_problem` of the addresses libqi really bound.  libqi is only ever given a
canonical address (:func:`libqi_listen_url`): its own parser crashes the process on some
forms the resolver accepts (``127.0.0.01``), and it cannot listen on IPv6 (``[::1]`` is
"Host not found", ``::1`` and ``0:0:0:0:0:0:0:1`` bind IPv4 addresses).
"""
import ipaddress
import re
import socket
from typing import List, Optional
from urllib.parse import urlsplit


def _is_loopback_address(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return (mapped or ip).is_loopback


#: the listen URLs accepted: ``tcp://HOST:PORT`` or ``tcps://HOST:PORT`` with a plain host
#: name, an IPv4 address or a bracketed IPv6 one; nothing that libqi and Python's URL parser
#: could read differently (userinfo, backslashes, spaces, paths, percent escapes)
_LISTEN_URL = re.compile(r"(?:tcp|tcps)://(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?"
                         r"|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}")


class ListenRefused(ValueError):
    """The simulated robot will not listen on ``url`` because of ``problem`` (``remote``:
    because it is not loopback)."""

    def __init__(self, url: str, problem: str, remote: bool = False) -> None:
        super().__init__("%s: %s" % (url, problem))
        self.url = url
        self.problem = problem
        self.remote = remote


def listen_url_problem(url: str) -> Optional[str]:
    """None when ``url`` is a listen URL as the simulated robot takes it
    (``tcp://HOST:PORT``, see :data:`_LISTEN_URL`), else what is wrong with it."""
    if not _LISTEN_URL.fullmatch(url):
        return ("expected tcp://HOST:PORT (or tcps://) with a plain host name or address: "
                "no user, path, backslash, space or escape")
    if int(url.rsplit(":", 1)[1]) > 65535:
        return "the port is not a TCP port (0 to 65535)"
    return None


def libqi_listen_url(url: str) -> str:
    """What libqi is given to listen on ``url`` (a URL :func:`listen_url_problem` takes):
    its host as the one IPv4 address it resolves to first, in canonical form
    (``127.0.0.01``, ``127.1`` and ``localhost`` give ``127.0.0.1``).  ValueError, for the
    user, when it is an IPv6 address or resolves to no IPv4 one."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        raise ValueError("libqi cannot listen on an IPv6 address ([%s]): give an IPv4 address "
                         "or a host name, such as tcp://127.0.0.1:%s" % (host, parts.port))
    try:
        addresses = [info[4][0] for info in socket.getaddrinfo(
            host, None, socket.AF_INET, socket.SOCK_STREAM) if info[0] == socket.AF_INET]
    except (socket.gaierror, UnicodeError, OSError) as error:
        raise ValueError("cannot resolve the host %r (%s)" % (
            host, getattr(error, "strerror", None) or error)) from None
    if not addresses:
        raise ValueError("the host %r resolves to no IPv4 address" % host)
    return "%s://%s:%d" % (parts.scheme, ipaddress.IPv4Address(addresses[0]), parts.port)


def loopback_problem(url: str) -> Optional[str]:
    """None when ``url``'s host is loopback: every address it resolves to (``getaddrinfo``,
    what libqi binds) is in 127.0.0.0/8 or ::1; else why it is not, for the user."""
    host = urlsplit(url).hostname or ""
    if not host:
        return "%s names no host" % url
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
        addresses = [host]
    except ValueError:
        try:
            addresses = sorted({info[4][0] for info in socket.getaddrinfo(
                host, None, type=socket.SOCK_STREAM)})
        except (socket.gaierror, UnicodeError, OSError) as error:
            return "cannot resolve the host %r (%s)" % (host, getattr(error, "strerror", None)
                                                       or error)
        if not addresses:
            return "the host %r resolves to no address" % host
    remote = [address for address in addresses if not _is_loopback_address(address)]
    if remote:
        return ("%s is not loopback" % host if remote == [host] else
                "%r resolves to %s, not loopback" % (host, ", ".join(remote)))
    return None


def endpoints_problem(endpoints: List[str]) -> Optional[str]:
    """None when every endpoint libqi listens on (``session.endpoints()``: what it really
    bound, e.g. every interface's address for 0.0.0.0) is loopback, else which are not."""
    if not endpoints:
        return "it listens on no endpoint"
    problems = [problem for problem in map(loopback_problem, endpoints) if problem]
    return "; ".join(problems) or None
