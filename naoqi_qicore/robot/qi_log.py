"""libqi's own console log (``[I] qimessaging.servicedirectory: Registered Service ...``),
kept in step with a program's log level.

libqi writes its log lines to the process's standard output by itself, INFO and above by
default: a robot started in-process prints a line for every service it registers or
unregisters.  :func:`follow_log_level` shows those INFO lines only at DEBUG, and libqi's
warnings and errors at every level that shows ours.  The notice libqi gives the first
time a session is made without a ``qi.Application`` (``qi.path.sdklayout: No Application
was created, trying to deduce paths``: where to look for its SDK's data files, which
nothing here uses) is never shown.
"""
import logging

#: the libqi log category of that notice
SDK_LAYOUT_CATEGORY = "qi.path.sdklayout"


def follow_log_level(level: int) -> None:
    """Set libqi's log threshold from a Python ``logging`` (or ROS, same numbers) level."""
    import qi
    if level <= logging.DEBUG:
        threshold = qi.logging.INFO
    elif level <= logging.WARNING:
        threshold = qi.logging.WARNING
    elif level <= logging.ERROR:
        threshold = qi.logging.ERROR
    else:
        threshold = qi.logging.FATAL
    qi.logging.setLevel(threshold)
    qi.logging.setFilters("-" + SDK_LAYOUT_CATEGORY)
