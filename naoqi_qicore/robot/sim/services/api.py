"""NAOqi's documented API, as data, completing the simulated services.

:mod:`naoqi_qicore.robot.sim.services.api_table` lists, per service, the methods of NAOqi's
API reference as signatures in NAOqi's own terms::

    "setFrameRate(frameRate: int) -> bool"
    "getFrameRate() -> int = 5"
    "getTemperatureDiagnosis() -> any"

A simulated service class (a :class:`~naoqi_qicore.robot.sim.services.module.SimModule`
subclass named after a listed service) gets, for every listed method it does not define
itself, a method built from its line:

* a setter (``setX``, ``enableX``, ``setEnableX``, ``pause``) whose getter (``getX``,
  ``isX``, ``isXEnabled``, ``areXEnabled``, ``isPaused``) is listed with a default
  (``= value``) keeps the value per service object and the getter gives it back (its
  default until set).  A setter taking more arguments than
  its getter keys the value by the getter's arguments (``setParameter(name, value)`` /
  ``getParameter(name)``);
* a method ending with ``= value`` answers that value: what the simulated robot is (its
  system version...), or a request it takes with nothing to act on;
* any other method that returns nothing (``-> none``) returns, as the robot does, without
  its effect: the call is in the robot's call record like any other, and the robot logs
  once per method that ``ALTabletService.cleanWebview``'s effect is not simulated (a box
  calling it carries on, as on the robot);
* any other raises ``RuntimeError("ALMotion.getCOM is part of NAOqi's API but is not
  simulated")``: no answer is made up for a box to act on.

Arguments are checked like those of the hand-written methods (count and types, with libqi's
numeric conversions): a call that would fail on a robot fails here.  A class defining a
method itself keeps its own; the table still documents it (and the tests check both agree).
"""
from __future__ import annotations

import ast
import copy
import functools
import inspect
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Tuple

#: names of the types the table uses -> Python annotations
TYPES: Dict[str, Any] = {"int": int, "float": float, "str": str, "bool": bool, "list": list,
                         "dict": dict, "any": Any, "none": None}
NOT_SIMULATED = "%s.%s is part of NAOqi's API but is not simulated"
#: what the robot logs, once per method, when a method returning nothing is not simulated
EFFECT_NOT_SIMULATED = "%s.%s returned as on the robot, but its effect is not simulated"
_NO_DEFAULT = object()
_SIGNATURE = re.compile(r"^(\w+)\((.*)\)\s*->\s*(\w+)(?:\s*=\s*(.+))?$")
_SETTER = re.compile(r"^(set|enable)([A-Z]\w*)$")


@dataclass(frozen=True)
class Parameter:
    """One documented argument; ``default`` is ``_NO_DEFAULT`` when it is required."""

    name: str
    type: str
    default: Any = _NO_DEFAULT

    @property
    def optional(self) -> bool:
        return self.default is not _NO_DEFAULT


@dataclass(frozen=True)
class Method:
    """One documented method: name, arguments, answer type and, if given, its answer."""

    name: str
    parameters: Tuple[Parameter, ...]
    returns: str
    answer: Any = _NO_DEFAULT

    @property
    def answers(self) -> bool:
        """Whether the table gives this method's answer (``= value``)."""
        return self.answer is not _NO_DEFAULT

    @property
    def required(self) -> int:
        return sum(1 for p in self.parameters if not p.optional)


@functools.lru_cache(maxsize=None)  # the lines of ALModule's group are every service's
def parse_method(line: str) -> Method:
    """A :class:`Method` from a table line (ValueError naming the line when malformed).

    The line is read as a Python function header (``name(argument: type = default, ...)
    -> type``), then an optional ``= answer`` literal."""
    match = _SIGNATURE.match(line.strip())
    if match is None:
        raise ValueError("not a method signature: %r" % line)
    name, arguments, returns, answer = match.groups()
    try:
        header = ast.parse("def %s(%s): pass" % (name, arguments)).body[0]
        assert isinstance(header, ast.FunctionDef)
        listed = header.args.args
        defaults = [ast.literal_eval(d) for d in header.args.defaults]
        answered = ast.literal_eval(answer) if answer is not None else _NO_DEFAULT
    except (SyntaxError, ValueError) as error:
        raise ValueError("%r: %s" % (line, error)) from None
    types = [getattr(a.annotation, "id", None) for a in listed]
    if returns not in TYPES or any(t not in TYPES or t == "none" for t in types) or \
            header.args.vararg or header.args.kwonlyargs or header.args.kwarg:
        raise ValueError("%r: every argument needs one of the types %s" % (line, ", ".join(
            t for t in TYPES if t != "none")))
    first_default = len(listed) - len(defaults)
    parameters = tuple(Parameter(a.arg, t, defaults[i - first_default] if i >= first_default
                                 else _NO_DEFAULT)
                       for i, (a, t) in enumerate(zip(listed, types)))
    return Method(name, parameters, returns, answered)


MODULE_GROUP = "ALModule"


def groups(service: str) -> Tuple[str, ...]:
    """The method groups ``service`` has besides its own (``ALModule``, ``ALExtractor``...)."""
    from naoqi_qicore.robot.sim.services.api_table import GROUPS
    return (MODULE_GROUP,) + GROUPS.get(service, ())


def documented_methods(service: str) -> Dict[str, Method]:
    """The documented methods of ``service`` by name, its groups' included (only those of
    ``ALModule`` when the service is not listed)."""
    from naoqi_qicore.robot.sim.services.api_table import API
    lines = [line for group in groups(service) + (service,) for line in API.get(group, ())]
    return {method.name: method for method in (parse_method(line) for line in lines)}


def documented_services() -> List[str]:
    """Names of the services the table lists (not the groups)."""
    from naoqi_qicore.robot.sim.services.api_table import API, GROUPS
    group_names = {MODULE_GROUP} | {g for names in GROUPS.values() for g in names}
    return sorted(name for name in API if name not in group_names)


def getter_names(setter: str) -> List[str]:
    """The names a getter of ``setter``'s setting may have."""
    if setter == "pause":
        return ["isPaused"]
    match = _SETTER.match(setter)
    if match is None:
        return []
    verb, subject = match.groups()
    if verb == "set" and subject.startswith("Enable") and subject != "Enable":
        verb, subject = "enable", subject[len("Enable"):]
    names = ["get" + subject, "is" + subject]
    if verb == "enable":
        names += ["is%sEnabled" % subject, "get%sEnabled" % subject, "are%sEnabled" % subject,
                  "is%sEnabled" % subject.rstrip("s"), "are%sEnabled" % subject.rstrip("s")]
    return names


def setting_pairs(methods: Dict[str, Method]) -> Dict[str, str]:
    """setter name -> getter name, for the documented settings of one service."""
    pairs = {}
    for name, method in methods.items():
        for getter in getter_names(name):
            found = methods.get(getter)
            if found is not None and found.answers and \
                    len(found.parameters) < len(method.parameters):
                pairs[name] = getter
                break
    return pairs


def _signature(method: Method) -> inspect.Signature:
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for parameter in method.parameters:
        parameters.append(inspect.Parameter(
            parameter.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=parameter.default if parameter.optional else inspect.Parameter.empty,
            annotation=TYPES[parameter.type]))
    return inspect.Signature(parameters, return_annotation=TYPES[method.returns])


def _settings(service: Any) -> Dict[Any, Any]:
    """The settings the table keeps for one service object (call with its lock held)."""
    return service.__dict__.setdefault("_documented_settings", {})


def _setter(setter: Method, getter: Method) -> Callable[..., Any]:
    keyed = len(getter.parameters)

    def set_value(self: Any, *args: Any) -> Any:
        key = (getter.name,) + tuple(args[:keyed])
        value = args[keyed] if len(args) == keyed + 1 else list(args[keyed:])
        with self._lock:
            _settings(self)[key] = value
        return True if setter.returns == "bool" else None
    return set_value


def _getter(getter: Method) -> Callable[..., Any]:
    def get_value(self: Any, *args: Any) -> Any:
        with self._lock:
            value = _settings(self).get((getter.name,) + tuple(args), getter.answer)
        return copy.deepcopy(value)
    return get_value


def _answer(method: Method) -> Callable[..., Any]:
    def answer(self: Any, *args: Any) -> Any:
        return copy.deepcopy(method.answer)
    return answer


def _without_effect(method: Method) -> Callable[..., Any]:
    """A method returning nothing that the simulated robot does not emulate: it returns,
    and the robot says so once per service object (one per robot) and method."""
    def answer(self: Any, *args: Any) -> None:
        with self._lock:
            told = self.__dict__.setdefault("_told_not_simulated", set())
            first = method.name not in told
            told.add(method.name)
        if first:
            self._sim.log.warning(EFFECT_NOT_SIMULATED, type(self).NAME, method.name)
    return answer


def _not_simulated(method: Method) -> Callable[..., Any]:
    def refuse(self: Any, *args: Any) -> Any:
        raise RuntimeError(NOT_SIMULATED % (type(self).NAME, method.name))
    return refuse


def build_method(service_name: str, method: Method, methods: Dict[str, Method],
                 pairs: Dict[str, str]) -> Callable[..., Any]:
    """The function standing for a documented ``method`` the class does not define (see
    the module), with ``method``'s signature and annotations (not yet argument-checked);
    ``methods`` are the service's documented methods, ``pairs`` their settings."""
    getters = {getter: setter for setter, getter in pairs.items()}
    body: Callable[..., Any]
    if method.name in pairs:
        body = _setter(method, methods[pairs[method.name]])
    elif method.name in getters:
        body = _getter(method)
    elif method.answers:
        body = _answer(method)
    elif method.returns == "none":
        body = _without_effect(method)
    else:
        body = _not_simulated(method)
    signature = _signature(method)

    def documented(self: Any, *args: Any) -> Any:
        return body(self, *args)

    documented.__name__ = documented.__qualname__ = method.name
    documented.__signature__ = signature  # type: ignore[attr-defined]
    documented.__annotations__ = {p.name: p.annotation for p in
                                  list(signature.parameters.values())[1:]}
    documented.__annotations__["return"] = signature.return_annotation
    documented.__doc__ = "NAOqi's %s.%s%s" % (service_name, method.name, "" if (
        method.name in pairs or method.name in getters or method.answers)
        else " (its effect is not simulated)" if method.returns == "none"
        else " (not simulated)")
    documented.__documented__ = method  # type: ignore[attr-defined]
    return documented


def missing_methods(cls: type) -> Dict[str, Callable]:
    """Functions for the documented methods ``cls`` (named by its own ``NAME``) lacks."""
    name = cls.__dict__.get("NAME")
    if not name:
        return {}
    methods = documented_methods(name)
    pairs = setting_pairs(methods)
    return {method_name: build_method(name, method, methods, pairs)
            for method_name, method in methods.items()
            if not callable(getattr(cls, method_name, None))}
