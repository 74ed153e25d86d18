"""Lines for a terminal that other processes write to as well."""
import sys
from typing import Optional, TextIO


def say(line: str, stream: Optional[TextIO] = None) -> None:
    """Write ``line`` and its newline in one write, then flush.

    ``print`` writes the text and the newline separately; unbuffered (PYTHONUNBUFFERED, as
    under launch), a program sharing the terminal or pipe can write between the two and
    two lines come out as one.
    """
    stream = sys.stdout if stream is None else stream
    stream.write(line + "\n")
    stream.flush()
