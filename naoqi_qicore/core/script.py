"""Where box code runs: its namespace, Python 2 names, imports, compiled code.

The box scripts of a behavior are executed in one namespace (:class:`ScriptNamespace`), as
NAOqi executed them: a name one box's code defines is seen by the others.  Its
``__builtins__`` adds the Python 2 builtins of :mod:`naoqi_qicore.core.py2` (``raw_input``
stays absent: a box cannot read a terminal) and its ``__import__`` resolves, in box code
only:

* the modules of the behavior's :class:`~naoqi_qicore.core.environment.ScriptEnvironment`
  (``naoqi``, ``almath``, ``qi``...) before anything installed, with their submodules
  (``import qi.logging`` binds the environment's ``qi``);
* Python 2 module names (:func:`~naoqi_qicore.core.py2.py2_import`), and the names
  Python 3 took out of the modules it kept (``collections.Mapping``, ``os.getcwdu``...), in
  the environment's modules too (its ``os``, its ``time``).

Compiled code is cached by source text: behaviors repeat the same library boxes.
Indentation mixing tabs and spaces that Python 2 accepted is read as Python 2 read it.
Handlers that catch everything (``except:``, ``except BaseException``) start by letting
a stop through (:func:`let_stop_through`): a loop around ``try: ... except: pass`` would
otherwise swallow the ``BehaviorStopped`` that ends a stopped behavior's code.
"""
from __future__ import annotations

import ast
import builtins
import hashlib
import linecache
import re
import sys
import threading
import types
import warnings
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Type, Union

from naoqi_qicore.converter.pyport import expand_indentation_tabs
from naoqi_qicore.core.guard import BehaviorStopped
from naoqi_qicore.core.py2 import PY2_BUILTINS, py2_import, python2_view
from naoqi_qicore.core.py2_text import PY2_TEXT_BUILTINS, rewrite_text_methods

#: the name of :func:`let_stop_through` in box code
STOP_CHECK_NAME = "__let_stop_through__"
_CATCH_ALL = re.compile(r"\bexcept\s*(?::|\(?[^:]*\bBaseException\b)")


def let_stop_through() -> None:
    """First statement of box code's catch-all handlers: re-raise ``BehaviorStopped``."""
    if isinstance(sys.exc_info()[1], BehaviorStopped):
        raise  # noqa: PLE0704 (re-raises the exception being handled)


class _CatchAllHandlers(ast.NodeTransformer):
    """Puts a :func:`let_stop_through` call first in the handlers catching everything."""

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.ExceptHandler:  # noqa: N802
        self.generic_visit(node)
        if node.type is None or _names_base_exception(node.type):
            check = ast.Expr(ast.Call(ast.Name(STOP_CHECK_NAME, ast.Load()), [], []))
            node.body.insert(0, ast.copy_location(check, node.body[0]))
        return node


def _names_base_exception(node: ast.expr) -> bool:
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    return any(isinstance(name, ast.Name) and name.id == "BaseException" for name in names)


def _let_stops_through(code: Union[str, ast.Module], filename: str) -> Union[str, ast.Module]:
    """``code`` whose catch-all handlers let a stop through."""
    tree = ast.parse(code, filename) if isinstance(code, str) else code
    return ast.fix_missing_locations(_CatchAllHandlers().visit(tree))


def box_builtins(modules: Mapping[str, types.ModuleType],
                 overrides: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """The ``__builtins__`` of box code that can import ``modules`` first (a dotted name:
    a submodule given too, ``os.path``), with ``overrides`` of builtins (``open``)."""
    real_import = builtins.__import__
    # the environment's modules with the names Python 2 gave them (its os's getcwdu...)
    modules = {name: python2_view(name, module) for name, module in modules.items()}

    def box_import(name: str, globals: Any = None, locals: Any = None,
                   fromlist: Any = (), level: int = 0) -> Any:
        if level == 0:
            if name in modules and (fromlist or "." not in name):
                return modules[name]
            top = name.partition(".")[0]
            if top in modules:
                submodule = real_import(name, globals, locals, fromlist, level)
                return submodule if fromlist else modules[top]
            module = py2_import(name, fromlist, modules)
            if module is not None:
                return module
        return real_import(name, globals, locals, fromlist, level)

    namespace = dict(builtins.__dict__)
    namespace.pop("raw_input", None)
    namespace.update(PY2_BUILTINS)
    namespace.update(PY2_TEXT_BUILTINS)
    namespace.update(overrides or {})
    namespace[STOP_CHECK_NAME] = let_stop_through
    namespace["__import__"] = box_import
    return namespace


class _CompiledScript:
    """A box script compiled once, and what gives each box its own copy of the code."""

    __slots__ = ("code", "lines", "rename")

    def __init__(self, code: types.CodeType, lines: List[str]) -> None:
        self.code = code
        self.lines = lines
        #: ``rename(filename)``: the code and the code objects it holds under ``filename``
        self.rename = _renamer(code)


def _renamer(code: types.CodeType) -> Callable[[str], types.CodeType]:
    """A function renaming ``code`` and its nested code objects: where they are among the
    constants is found once, not for every box that runs the same script."""
    nested = [(index, _renamer(constant)) for index, constant in enumerate(code.co_consts)
              if isinstance(constant, types.CodeType)]
    if not nested:
        return lambda filename: code.replace(co_filename=filename)

    def rename(filename: str) -> types.CodeType:
        constants = list(code.co_consts)
        for index, rename_nested in nested:
            constants[index] = rename_nested(filename)
        return code.replace(co_filename=filename, co_consts=tuple(constants))
    return rename


_code_cache: Dict[str, _CompiledScript] = {}
_code_lock = threading.Lock()


def compile_box_script(source: str, filename: Optional[str] = None) -> types.CodeType:
    """Compile a box script (cached by text); raises ``SyntaxError``.

    The code's file name is ``filename`` (default ``<box script HASH>``) and its lines are
    registered with :mod:`linecache` under it, so tracebacks show the script's lines
    (:func:`forget_box_scripts` drops them).  ``encode``/``decode``
    calls get Python 2's results on text (:mod:`naoqi_qicore.core.py2_text`); handlers
    catching everything let a stop through.
    """
    with _code_lock:
        compiled = _code_cache.get(source)
    if compiled is None:
        compiled = _compile(source)
    if filename is None or filename == compiled.code.co_filename:
        return compiled.code
    linecache.cache[filename] = (len(source), None, compiled.lines, filename)
    return compiled.rename(filename)


def forget_box_scripts(filenames: List[str]) -> None:
    """Drop the lines of the box scripts compiled under ``filenames`` (a behavior unloaded)."""
    for filename in filenames:
        linecache.cache.pop(filename, None)


def script_key(source: str) -> str:
    """A short key telling the script text ``source`` apart (a hash of it)."""
    return hashlib.sha1(source.encode("utf-8", "replace")).hexdigest()[:10]


def _compile(source: str) -> _CompiledScript:
    """Compile and cache ``source`` under the file name ``<box script HASH>``; indentation
    mixing tabs and spaces as Python 2 accepted it is read as Python 2 did."""
    filename = "<box script %s>" % script_key(source)
    try:
        code = _compile_text(source, filename)
    except TabError:
        # a script converted before tabs were expanded, or a .py edited by hand
        expanded = expand_indentation_tabs(source)
        if expanded == source:
            raise
        code = _compile_text(expanded, filename)
    compiled = _CompiledScript(code, source.splitlines(True))
    linecache.cache[filename] = (len(source), None, compiled.lines, filename)
    with _code_lock:
        _code_cache[source] = compiled
    return compiled


def _compile_text(text: str, filename: str) -> types.CodeType:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes etc. of old scripts
        rewritten = rewrite_text_methods(text, filename)
        if _CATCH_ALL.search(text):
            rewritten = _let_stops_through(rewritten, filename)
        return compile(rewritten, filename, "exec", dont_inherit=True)


def find_box_class(namespace: Mapping[str, Any], my_class: Any, base: Type,
                   module_name: str) -> Type:
    """The class a box script defines for its box: the ``MyClass`` it bound (``my_class``,
    None when it bound none) if it derives from ``base``; else the last class of the
    globals ``namespace`` deriving from ``base`` that is defined in ``module_name`` (a
    class takes the module of the globals' ``__name__`` when it is made, which is the
    box's only while its script runs: such a class is one the script bound); ``base``
    when none."""
    if isinstance(my_class, type) and issubclass(my_class, base):
        return my_class
    found: Optional[Type] = None
    for value in namespace.values():
        if (isinstance(value, type) and value is not base and issubclass(value, base)
                and value.__module__ == module_name):
            found = value
    return found or base


_UNBOUND = object()


class ScriptNamespace:
    """The globals every box script of one behavior runs in.

    NAOqi executed all the box scripts of a behavior in one namespace (libqicore-compat:
    its interpreter's ``__main__``; NAOqi 1.x: ALPythonBridge's), each right before the
    object of its box was made: a name one box's code defines, at module level or with
    ``global`` in a method (a server address, a proxy), is seen by the code of the boxes
    that run after.  Here too: each script runs in the shared globals with
    ``GeneratedClass`` bound to its own box's base class and ``__name__`` to its box's name
    (the module of the classes it defines), and its box's class is found among the names it
    bound, so that every box may define its ``class MyClass(GeneratedClass)``.
    """

    def __init__(self, builtins: Dict[str, Any], names: Mapping[str, Any]) -> None:
        #: the shared globals (``names``: what NAOqi had imported there before any box)
        self.globals: Dict[str, Any] = {"__builtins__": builtins}
        self.globals.update(names)
        self._lock = threading.Lock()
        #: (file name, script text) -> its code under that name (boxes running one script
        #: share it; two boxes of one path have one file name, not always one script)
        self._code: Dict[Tuple[str, str], types.CodeType] = {}

    def box_class(self, source: str, filename: str, box_name: str, base: Type) -> Type:
        """Run a box's script (compiled under ``filename``) in the shared globals; the
        class it defines for its box, ``base`` when it defines none.  Raises what the
        script raises (``SyntaxError`` included)."""
        namespace = self.globals
        with self._lock:
            namespace["__name__"] = box_name
            namespace["GeneratedClass"] = base
            before = namespace.get("MyClass", _UNBOUND)
            if source and not source.isspace():  # not source.strip(): no copy
                code = self._code.get((filename, source))
                if code is None:
                    code = self._code[filename, source] = compile_box_script(source, filename)
                exec(code, namespace)
            my_class = namespace.get("MyClass", _UNBOUND)
            return find_box_class(namespace, my_class if my_class is not before else None,
                                  base, box_name)


def positional_arity(method: Callable) -> Optional[int]:
    """How many positional arguments a bound method accepts (None: any number)."""
    code = getattr(getattr(method, "__func__", method), "__code__", None)
    if code is None:
        return None
    if code.co_flags & 0x04:  # *args
        return None
    count = code.co_argcount
    return count - 1 if hasattr(method, "__self__") else count
