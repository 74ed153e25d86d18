"""naoqi_sim and run_behavior share a terminal: each line goes out in one write."""
import io
from typing import List

from naoqi_qicore.robot.console import say


class Recording(io.StringIO):
    """A stream that keeps each write apart, as an unbuffered pipe does."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: List[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def test_a_line_and_its_newline_go_in_one_write() -> None:
    stream = Recording()
    say("naoqi_sim: expectation failed: check.yaml:3: step 2", stream)
    say("run_behavior: state  FINISHED", stream)
    assert stream.writes == ["naoqi_sim: expectation failed: check.yaml:3: step 2\n",
                             "run_behavior: state  FINISHED\n"]
    # what print does: two writes, between which another program's line can land
    print("run_behavior: state  FINISHED", file=stream)
    assert stream.writes[2:] == ["run_behavior: state  FINISHED", "\n"]
