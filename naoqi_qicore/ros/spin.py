"""Running a node as a program: ``--help``, init, spin, clean shutdown on Ctrl-C or SIGTERM."""
import ctypes
import logging
import os
import signal
import sys
import threading
from typing import Any, Callable, List, NoReturn, Optional

import rclpy
import rclpy.logging
from rclpy.executors import Executor, ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions
from rclpy.utilities import remove_ros_args

from naoqi_qicore.robot.qi_log import follow_log_level
from naoqi_qicore.ros.node_parameters import NodeProgram

try:  # rclpy of Jazzy (7.1.4 and later) and Kilted
    from rclpy.experimental import EventsExecutor
except ImportError:  # Humble
    EventsExecutor = None


class NodeSetupError(Exception):
    """A node cannot start (bad parameter, unreadable file): reported without a traceback."""


#: the signals that end a node's program: Ctrl-C and SIGTERM
_ENDING_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def one_at_a_time_executor() -> Executor:
    """An executor running callbacks one at a time, in the thread that spins it.

    rclpy's events executor when there is one (its dispatch is done in C++: a service
    callback starts about 0.2 ms after the request is sent, against 0.5 to 1 ms, with
    tails of several ms, for the wait-set executors, which rebuild their wait set in
    Python for every callback); else the single-threaded executor.
    """
    return EventsExecutor() if EventsExecutor is not None else SingleThreadedExecutor()


def end_process(status: int) -> NoReturn:
    """End the process now with exit code ``status``, once everything it wrote is out.

    A normal exit destroys libqi's static objects while threads of its own may still run,
    which aborts the process now and then ("terminate called without an active
    exception", exit -6 instead of ``status``): a program whose node is closed has nothing
    left to clean up that the system does not.
    """
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    ctypes.CDLL(None).fflush(None)  # what C code (rcutils, libqi) buffered
    os._exit(status)


def asks_for_help(args: List[str]) -> bool:
    """True when the program's own arguments (those outside ``--ros-args``) hold
    ``-h`` or ``--help``."""
    return any(argument in ("-h", "--help") for argument in remove_ros_args(args)[1:])


def run_node(make_node: Callable[[], Node], program: NodeProgram,
             args: Optional[List[str]] = None) -> int:
    """Create the node with ``make_node`` and spin it with :func:`one_at_a_time_executor`
    until Ctrl-C, SIGTERM (which end the spin once the callback running has returned), or
    the node ends the program by setting its ``exit_status`` attribute (then that is the
    exit code); with ``--help``, print what ``program`` says and return.  Run as a
    program (``args`` None: the command line), the process then ends with
    :func:`end_process`.

    libqi's log follows the node's log level (:func:`~naoqi_qicore.robot.qi_log.follow_log_level`).
    The node's ``close()`` method, if any, runs while ROS is still up (so that it can
    still publish, e.g. a last motion stop), then the node is destroyed.  Returns the
    exit code.
    """
    if asks_for_help(sys.argv if args is None else args):
        print(program.help_text())
        return 0
    # Signals end the spin here rather than shutting ROS down behind our back.
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    follow_log_level(int(rclpy.logging.get_logger(program.node_name).get_effective_level()))
    previous = {number: signal.getsignal(number) for number in _ENDING_SIGNALS}
    signal.signal(signal.SIGTERM, _interrupt)  # while the node is made: it stops at once
    node = None
    status = None
    try:
        node = make_node()
        executor = one_at_a_time_executor()
        executor.add_node(node)
        # From now on a signal ends the spin between two callbacks, never inside one,
        # where an exception would leave its work half done (a chunk of the bag file half
        # written, a state half published).
        asked = threading.Event()
        for number in _ENDING_SIGNALS:
            signal.signal(number, lambda *_: asked.set())
        while (not asked.is_set() and executor.context.ok()
               and getattr(node, "exit_status", None) is None):
            # A bounded wait lets Python run the signal handlers (Ctrl-C, SIGTERM).
            executor.spin_once(timeout_sec=0.2)
    except NodeSetupError as error:
        print("error: %s" % error, file=sys.stderr)
        status = 2
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if node is not None:
            close = getattr(node, "close", None)
            if close is not None:
                close()
            node.destroy_node()
        rclpy.try_shutdown()
    if status is None:
        status = getattr(node, "exit_status", None) or 0
    if args is None:
        end_process(status)
    return status
