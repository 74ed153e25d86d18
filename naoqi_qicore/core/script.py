"""Where box code runs: its module namespace, Python 2 names, imports, compiled code.

Each box's script is executed in a module namespace of its own whose ``__builtins__``
adds the Python 2 builtins of :mod:`naoqi_qicore.core.py2` (``raw_input`` stays absent:
a box cannot read a terminal) and whose ``__import__`` resolves, in box code only:

* the modules of the behavior's :class:`~naoqi_qicore.core.environment.ScriptEnvironment`
  (``naoqi``, ``almath``, ``qi``...) before anything installed, with their submodules
  (``import qi.logging`` binds the environment's ``qi``);
* Python 2 module names (:func:`~naoqi_qicore.core.py2.py2_module`).

Compiled code is cached by source text: behaviors repeat the same library boxes.
"""
from __future__ import annotations

import builtins
import hashlib
import linecache
import threading
import types
import warnings
from typing import Any, Callable, Dict, Mapping, Optional, Type

from naoqi_qicore.core.py2 import PY2_BUILTINS, py2_module
from naoqi_qicore.core.py2_text import PY2_TEXT_BUILTINS, rewrite_text_methods


def box_builtins(modules: Mapping[str, types.ModuleType]) -> Dict[str, Any]:
    """The ``__builtins__`` of box code that can import ``modules`` first."""
    real_import = builtins.__import__

    def box_import(name: str, globals: Any = None, locals: Any = None,
                   fromlist: Any = (), level: int = 0) -> Any:
        if level == 0:
            if name in modules:
                return modules[name]
            top = name.partition(".")[0]
            if top in modules:
                submodule = real_import(name, globals, locals, fromlist, level)
                return submodule if fromlist else modules[top]
            module = py2_module(name)
            if module is not None:
                return module
        return real_import(name, globals, locals, fromlist, level)

    namespace = dict(builtins.__dict__)
    namespace.pop("raw_input", None)
    namespace.update(PY2_BUILTINS)
    namespace.update(PY2_TEXT_BUILTINS)
    namespace["__import__"] = box_import
    return namespace


_code_cache: Dict[str, types.CodeType] = {}
_code_lock = threading.Lock()


def compile_box_script(source: str) -> types.CodeType:
    """Compile a box script (cached by text); raises ``SyntaxError``.

    The code's file name is ``<box script HASH>`` and its lines are registered with
    :mod:`linecache`, so tracebacks show the script's lines.  ``encode``/``decode``
    calls get Python 2's results on text (:mod:`naoqi_qicore.core.py2_text`).
    """
    with _code_lock:
        code = _code_cache.get(source)
    if code is not None:
        return code
    filename = "<box script %s>" % hashlib.sha1(source.encode("utf-8", "replace")).hexdigest()[:10]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes etc. of old scripts
        code = compile(rewrite_text_methods(source, filename), filename, "exec",
                       dont_inherit=True)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    with _code_lock:
        _code_cache[source] = code
    return code


def find_box_class(namespace: Mapping[str, Any], base: Type) -> Type:
    """The class a box script defines for its box: ``MyClass`` (or another name kept by the
    converter) deriving from ``base``; the last such class defined; ``base`` when none."""
    preferred = namespace.get("MyClass")
    if isinstance(preferred, type) and issubclass(preferred, base):
        return preferred
    module_name = namespace.get("__name__")
    found: Optional[Type] = None
    for value in namespace.values():
        if (isinstance(value, type) and issubclass(value, base) and value is not base
                and value.__module__ == module_name):
            found = value
    return found or base


def positional_arity(method: Callable) -> Optional[int]:
    """How many positional arguments a bound method accepts (None: any number)."""
    code = getattr(getattr(method, "__func__", method), "__code__", None)
    if code is None:
        return None
    if code.co_flags & 0x04:  # *args
        return None
    count = code.co_argcount
    return count - 1 if hasattr(method, "__self__") else count
