"""What the robot says and hears, as topics: ``robot/speech`` and ``robot/heard``.

:class:`SpeechTopics` subscribes to the robot's ALMemory events (on a real robot as on the
simulated one) and publishes a ``std_msgs/String`` for each:

* ``robot/speech``: each sentence the robot starts saying (``ALTextToSpeech/CurrentSentence``,
  raised by ALTextToSpeech, ALAnimatedSpeech and ALDialog alike);
* ``robot/heard``: each phrase it recognised: ALSpeechRecognition's ``WordRecognized``
  (phrases out of its vocabulary, recognised as ``""``, are left out) and ALDialog's
  ``Dialog/LastInput``.
"""
from typing import Any, Callable, List

from rclpy.node import Node
from std_msgs.msg import String

from naoqi_qicore.ros.qos import COMMANDS

SPEECH_KEY = "ALTextToSpeech/CurrentSentence"
HEARD_KEYS = ("WordRecognized", "Dialog/LastInput")


def heard_text(value: Any) -> str:
    """The words of a ``WordRecognized`` (``[phrase, confidence, ...]``) or
    ``Dialog/LastInput`` (the input) value; "" when nothing was recognised."""
    if isinstance(value, (list, tuple)):
        return str(value[0]) if value and value[0] else ""
    return str(value or "")


class SpeechTopics:
    """Publishes what the robot says and hears (see the module)."""

    def __init__(self, node: Node) -> None:
        self._logger = node.get_logger()
        self._speech_pub = node.create_publisher(String, "robot/speech", COMMANDS)
        self._heard_pub = node.create_publisher(String, "robot/heard", COMMANDS)
        self._subscribers: List[Any] = []  # kept alive: a dropped subscriber unsubscribes
        self._closed = False

    def bind(self, session: Any) -> None:
        """After a connection: subscribe to the events of the new session."""
        memory = session.service("ALMemory")
        subscribers = []
        for key, publisher in [(SPEECH_KEY, self._speech_pub)] + [
                (key, self._heard_pub) for key in HEARD_KEYS]:
            subscriber = memory.subscriber(key)
            subscriber.signal.connect(self._publisher(publisher, key))
            subscribers.append(subscriber)
        self._subscribers = subscribers

    def _publisher(self, publisher: Any, key: str) -> Callable[[Any], None]:
        def publish(value: Any) -> None:
            text = heard_text(value) if key in HEARD_KEYS else str(value or "")
            if text and not self._closed:
                publisher.publish(String(data=text))
        return publish

    def forget(self) -> None:
        """The connection is gone: drop its subscribers."""
        self._subscribers = []

    def close(self) -> None:
        """Publish nothing more."""
        self._closed = True
        self._subscribers = []
