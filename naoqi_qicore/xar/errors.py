"""The error raised for every input that cannot be read as a behavior."""
from typing import Optional


class XarError(ValueError):
    """A behavior file that cannot be read, with where the problem is.

    ``str(error)`` is one line: ``file:line: <element>: message`` (parts that are not
    known are left out).
    """

    def __init__(self, message: str, file: str = "", line: Optional[int] = None,
                 element: Optional[str] = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.element = element
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = self.file or "<input>"
        if self.line:
            where += ":%d" % self.line
        text = "%s: " % where
        if self.element:
            text += "<%s>: " % self.element
        return (text + self.message).replace("\n", " ")

    def located(self, file: str) -> "XarError":
        """The same error reported in ``file`` when it did not name a file yet."""
        if self.file:
            return self
        return XarError(self.message, file, self.line, self.element)
