"""Box parameter values: from their text in the file to Python values."""
from __future__ import annotations

from typing import Any

from naoqi_qicore.xar.model import Parameter, ParameterType

_TRUE = frozenset(("1", "true", "yes", "on"))
_FALSE = frozenset(("0", "false", "no", "off", ""))


def convert_value(content_type: int, text: Any) -> Any:
    """The Python value of a parameter's text: bool, int, float or str by ``content_type``.

    Raises ``ValueError`` when the text does not fit the type.
    """
    if not isinstance(text, str):
        return text
    if content_type == ParameterType.BOOL:
        lowered = text.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ValueError("%r is not a boolean (0 or 1)" % text)
    if content_type == ParameterType.INT:
        return int(float(text)) if text.strip() else 0
    if content_type == ParameterType.DOUBLE:
        return float(text) if text.strip() else 0.0
    return text


def initial_value(parameter: Parameter) -> Any:
    """The value a box starts with: ``value``, else ``default_value``."""
    text = parameter.value if parameter.value is not None else parameter.default_value
    try:
        return convert_value(parameter.content_type, text if text is not None else "")
    except ValueError as error:
        raise ValueError("parameter %r: %s" % (parameter.name, error)) from None
