"""Running a node as a program: init, spin, clean shutdown on Ctrl-C or SIGTERM."""
import signal
import sys
from typing import Any, Callable, List, Optional

import rclpy
from rclpy.executors import (ExternalShutdownException, MultiThreadedExecutor,
                              SingleThreadedExecutor)
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions


class NodeSetupError(Exception):
    """A node cannot start (bad parameter, unreadable file): reported without a traceback."""


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def run_node(make_node: Callable[[], Node], args: Optional[List[str]] = None,
             threads: int = 4) -> int:
    """Create the node with ``make_node`` and spin it until Ctrl-C or SIGTERM.

    ``threads`` callbacks may run at once (1: a single-threaded executor).
    The node's ``close()`` method, if any, runs while ROS is still up (so that it can
    still publish, e.g. a last motion stop), then the node is destroyed.  Returns the
    exit code.
    """
    # Signals interrupt the spin here rather than shutting ROS down behind our back.
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    previous = signal.signal(signal.SIGTERM, _interrupt)
    node = None
    try:
        node = make_node()
        executor = (SingleThreadedExecutor() if threads == 1
                    else MultiThreadedExecutor(num_threads=threads))
        executor.add_node(node)
        while executor.context.ok():
            # A bounded wait lets Python run the signal handlers (Ctrl-C, SIGTERM).
            executor.spin_once(timeout_sec=0.2)
    except NodeSetupError as error:
        print("error: %s" % error, file=sys.stderr)
        return 2
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        if node is not None:
            close = getattr(node, "close", None)
            if close is not None:
                close()
            node.destroy_node()
        rclpy.try_shutdown()
    return 0
