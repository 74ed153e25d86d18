"""Choregraphe's Dialog boxes: a box with a ``<dialogFile>`` and no script of its own.

The ``.dlg`` file (path relative to the behavior's folder) names one QiChat topic per
language (``multilanguage:Name`` then lines ``enu:Name_enu.top``, paths relative to the
``.dlg``).  While the box runs, the topic of ALDialog's current language is loaded into
ALDialog (by content, with the files it includes inlined: the robot need not see this
machine's files) and activated, and the box subscribes to ALDialog.  A topic stimulates
the box's outputs through QiChat variables named after them: ``$onStopped=1`` fires
``onStopped``, ``$choice=tea`` fires ``choice`` with ``"tea"`` (bang outputs fire without
value).  The box's onStop input, a Stopped output or unloading the box ends the dialog:
unsubscribed, topics deactivated and unloaded.
"""
from __future__ import annotations

import os
import re
from typing import Any, Callable, List, Optional, Tuple

from naoqi_qicore.converter.writer import has_python
from naoqi_qicore.core.generated import GeneratedClass
from naoqi_qicore.core.letter_case import missing_file_error
from naoqi_qicore.xar.model import Box, InputNature, IOType, OutputNature, Port


def is_dialog_box(model: Box) -> bool:
    """True for a box that is only a dialog (dialog file, no Python script)."""
    return bool(model.dialog_files) and not has_python(model.script)


#: QiChat language codes (those of ``.dlg`` files and ``language:`` lines) -> NAOqi names
QICHAT_LANGUAGES = {
    "arw": "Arabic", "cah": "CantoneseHongKong", "czc": "Czech", "dad": "Danish",
    "dun": "Dutch", "ena": "EnglishAustralia", "eng": "EnglishGB", "eni": "EnglishIndian",
    "enu": "English", "fif": "Finnish", "frc": "FrenchCanadian", "frf": "French",
    "ged": "German", "grg": "Greek", "iti": "Italian", "jpj": "Japanese", "kok": "Korean",
    "mnc": "Chinese", "mnt": "MandarinTaiwan", "non": "Norwegian", "plp": "Polish",
    "ptb": "Brazilian", "ptp": "Portuguese", "rur": "Russian", "spe": "Spanish",
    "spm": "SpanishMexico", "sws": "Swedish", "trt": "Turkish"}


def topic_files(dialog_file: str, language: str) -> List[str]:
    """The topic files a ``.dlg`` names for ``language`` (a NAOqi name; a ``.top`` names
    itself); OSError when unreadable."""
    if not dialog_file.endswith(".dlg"):
        return [dialog_file]
    folder = os.path.dirname(dialog_file)
    with open(dialog_file, encoding="utf-8-sig") as lines:
        entries = [line.strip().split(":", 1) for line in lines][1:]
    return [os.path.join(folder, entry[1].strip()) for entry in entries
            if len(entry) == 2 and QICHAT_LANGUAGES.get(entry[0], entry[0]) == language]


_INCLUDE = re.compile(r"^\s*include\s*:\s*(\S.*?)\s*$")
_HEADER = re.compile(r"^\s*(topic|language)\s*:", re.IGNORECASE)
#: how deep included topics may include others
_MAX_INCLUDE_DEPTH = 4


def topic_content(path: str, depth: int = 0) -> str:
    """The text of the topic file ``path``, its ``include:`` of files next to it inlined
    (their ``topic:`` and ``language:`` lines left out): the content sent to ALDialog
    needs nothing of this machine's files.  An include naming no file here (the robot's
    own ``lexicon_enu.top``) stays for ALDialog to resolve; OSError when unreadable."""
    with open(path, encoding="utf-8-sig") as topic:
        lines = topic.read().splitlines()
    out = []
    for line in lines:
        include = _INCLUDE.match(line)
        if include and depth < _MAX_INCLUDE_DEPTH:
            target = os.path.normpath(os.path.join(os.path.dirname(path), include.group(1)))
            if os.path.isfile(target):
                out.extend(text for text in topic_content(target, depth + 1).splitlines()
                           if not _HEADER.match(text))
                continue
        out.append(line)
    return "\n".join(out) + "\n"


class DialogBox(GeneratedClass):
    """The script of a Dialog box (see the module)."""

    def __init__(self) -> None:
        super().__init__()
        self._dialog: Optional[Any] = None
        self._topics: List[str] = []
        self._active: List[str] = []
        self._subscribed = False
        self._links: List[Tuple[Any, int]] = []
        for port in self._box.model.inputs:
            if port.nature == InputNature.ON_START:
                setattr(self, "onInput_" + port.name, self._start_dialog)
            elif port.nature == InputNature.ON_STOP:
                setattr(self, "onInput_" + port.name, self._stop_dialog)

    def onUnload(self) -> None:  # noqa: N802 (NAOqi name)
        self._stop_dialog()

    def _start_dialog(self) -> None:
        if self._dialog is not None:
            return
        session = self.session()
        dialog, memory = session.service("ALDialog"), session.service("ALMemory")
        self._dialog = dialog
        try:
            self._load_topics(dialog)
            for name in self._topics:
                dialog.activateTopic(name)
                self._active.append(name)
            dialog.subscribe(self.getName())
            self._subscribed = True
            for port in self._box.model.outputs:
                subscriber = memory.subscriber(port.name)
                link = subscriber.signal.connect(self._output_setter(port))
                self._links.append((subscriber, link))
        except BaseException:
            self._stop_dialog()
            raise

    def _load_topics(self, dialog: Any) -> None:
        folder, language = self.behaviorAbsolutePath(), dialog.getLanguage()
        try:
            for entry in self._box.model.dialog_files:
                for path in topic_files(os.path.normpath(os.path.join(folder, entry)),
                                        language):
                    self._topics.append(dialog.loadTopicContent(topic_content(path)))
        except FileNotFoundError as error:  # named with another letter case?
            missing = (missing_file_error(os.path.relpath(error.filename, folder),
                                          error.filename)
                       if isinstance(error.filename, str) else None)
            if missing is None:
                raise
            raise missing from None
        if not self._topics:
            raise RuntimeError("no topic in %s for the dialog language, %s"
                               % (", ".join(self._box.model.dialog_files), language))

    def _output_setter(self, port: Port) -> Callable[[Any], None]:
        def variable_set(value: Any) -> None:
            if port.nature == OutputNature.STOPPED:
                self._stop_dialog()
            self._box.output(port.name, None if port.type == IOType.BANG else value)
        return variable_set

    def _stop_dialog(self) -> None:
        dialog, self._dialog = self._dialog, None
        if dialog is None:
            return
        links, self._links = self._links, []
        steps: List[Callable[[], Any]] = [
            lambda s=subscriber, k=link: s.signal.disconnect(k) for subscriber, link in links]
        if self._subscribed:
            steps.append(lambda: dialog.unsubscribe(self.getName()))
        steps += [lambda n=name: dialog.deactivateTopic(n) for name in self._active]
        steps += [lambda n=name: dialog.unloadTopic(n) for name in self._topics]
        self._active, self._topics, self._subscribed = [], [], False
        for step in steps:
            try:
                step()
            except Exception as error:  # the robot session is gone, or NAOqi said no
                self.logger.debug("ending the dialog: %s", error)
