"""Porting box scripts to Python 3 without running them."""
import warnings

from naoqi_qicore.converter.pyport import port_script, port_scripts


def compiles(code):
    compile(code, "<test>", "exec")
    return True


def test_python3_scripts_are_left_alone():
    source = "class MyClass(GeneratedClass):\n    def onLoad(self):\n        s = '\\R'\n"
    result = port_script(source)
    assert (result.code, result.ported, result.error) == (source, False, None)


def test_python2_idioms_are_ported():
    source = ("import qi\nclass MyClass(GeneratedClass):\n"
              "    def onInput_onStart(self):\n"
              "        self.f = qi.async(self.go, delay=1000)\n"
              "        try:\n            print 'start', self.f\n"
              "        except Exception, e:\n            print e\n"
              "        return 0755\n")
    result = port_script(source)
    assert result.ported and result.error is None and compiles(result.code)
    assert "qi.runAsync(self.go, delay=1000)" in result.code
    assert "except Exception as e:" in result.code
    assert "print('start', self.f)" in result.code
    assert "0o755" in result.code
    assert "class MyClass(GeneratedClass):" in result.code


def test_async_names_and_star_imports():
    source = ("def f():\n    from os.path import *\n    async = join('a', 'b')\n"
              "    print async\n    return async\n")
    result = port_script(source)
    assert result.ported and compiles(result.code)
    assert "async_ = join('a', 'b')" in result.code
    assert result.code.count("\n") == source.count("\n")  # line numbers kept
    scope = {}
    exec(compile(result.code, "<test>", "exec"), scope)  # a test of our own code only
    assert scope["f"]() == "a/b"


def test_unportable_scripts_keep_their_text_and_say_why():
    source = "if x == 1\n    pass\n"
    result = port_script(source)
    assert result.code == source and not result.ported
    assert "line 1" in result.error


def test_results_are_cached_by_text():
    source = "print 'cached'\n"
    assert port_script(source) is port_script(source)


def test_quick_token_fixes_handle_except_and_async_alone():
    source = ("import qi\ntry:\n    f = qi.async(g, delay=1)\nexcept (IOError, OSError), e:\n"
              "    pass\nexcept ValueError,error :\n    d = {'a': (1, 2)}\n")
    result = port_script(source)
    assert result.ported and compiles(result.code)
    assert "except (IOError, OSError) as e:" in result.code
    assert "except ValueError as error :" in result.code
    assert "qi.runAsync(g, delay=1)" in result.code


def test_quick_fixes_rewrite_print_statements_raise_and_literals():
    source = ('import sys\nx = 0\nprint\nprint "a", x,\nprint >>sys.stderr, "b"\n'
              'print ("c", x)\nprint ("%s") % x ; y = 0755 + 10L\n'
              'if x <> 1: print "no print here # or here", x # comment\n'
              'd = {"k": [1,\n      2]}; print d["k"][0:1], \\\n  3\n'
              'try:\n    raise ValueError, "v"\nexcept ValueError , e:\n    pass\n')
    result = port_script(source)
    assert result.ported and compiles(result.code)
    assert result.code.count("\n") == source.count("\n")
    for expected in ('print()\n', "print(\"a\", x, end=' ')", 'print("b", file=sys.stderr)',
                     'print ("c", x)', 'print(("%s") % x) ; y = 0o755 + 10',
                     'if x != 1: print("no print here # or here", x) # comment',
                     'print(d["k"][0:1], \\\n  3)', 'raise ValueError("v")',
                     "except ValueError as e:"):
        assert expected in result.code, expected


def test_scripts_with_the_print_function_keep_their_calls():
    source = ("from __future__ import print_function\nprint('a', end='')\n"
              "except_ = 1\ntry:\n    pass\nexcept Exception, e:\n    print(e)\n")
    result = port_script(source)
    assert result.ported and compiles(result.code)
    assert result.code == source.replace("Exception, e", "Exception as e")


def test_fissix_still_ports_what_the_quick_scan_leaves():
    source = "def f(a, (b, c)):\n    print `a`\n    exec 'x = 1' in {}\n"
    result = port_script(source)
    assert result.ported and compiles(result.code)
    assert "repr(a)" in result.code and "exec('x = 1', {})" in result.code


def test_python2_dictionary_methods_are_ported_even_when_the_script_compiles():
    source = ("def totals(d):\n    out = []\n    for k, v in d.iteritems():\n"
              "        out.append((k, v))\n    if d.has_key('x'):\n        out.append(d.keys())\n"
              "    return out\n")
    assert compiles(source)  # Python 3 compiles it, but iteritems/has_key would fail at run time
    result = port_script(source)
    assert result.ported and result.error is None
    scope = {}
    exec(compile(result.code, "<test>", "exec"), scope)  # a test of our own code only
    assert scope["totals"]({"x": 1}) == [("x", 1), ["x"]]


def test_python2_dictionary_methods_are_ported_with_print_statements():
    source = "def show(d):\n    for k in d.iterkeys():\n        print k\n"
    result = port_script(source)
    assert result.ported and result.error is None
    assert "d.keys()" in result.code and "print(k)" in result.code


def _fissix_dict_port(source):
    from fissix.refactor import RefactoringTool
    tool = RefactoringTool(["fissix.fixes.fix_dict", "fissix.fixes.fix_has_key"],
                           {"print_function": True})
    return str(tool.refactor_string(source, "<test>"))


def test_loops_over_iter_methods_are_ported_as_fissix_ports_them():
    loops = ("class A:\n    def f(self, d):\n"
             "        for k, v in self.data.iteritems():  # '.keys()'\n            print(k)\n"
             "        for k in d.iterkeys() :\n            pass\n"
             "        s = '''\nfor x in d.iteritems():\n'''\n")
    result = port_script(loops)
    assert result.ported and result.code == _fissix_dict_port(loops)
    assert "self.data.items()" in result.code and "d.keys()" in result.code
    assert "for x in d.iteritems():" in result.code  # inside a string: kept


def test_other_dictionary_methods_go_through_fissix():
    for source in ("for k in d.iteritems():\n    pass\nx = d.keys()\n",
                   "x = d.iteritems()\n",
                   "for k in x in d.iteritems():\n    pass\n",
                   "y = [k\n     for k in d.iteritems()]\n",
                   "for k in sorted(d.iteritems()):\n    pass\n",
                   "for k in d.iteritems():\n    pass\nif d.has_key(1):\n    pass\n"):
        result = port_script(source)
        assert result.ported and result.code == _fissix_dict_port(source), source


def test_converting_scripts_that_do_not_compile_leaves_no_reference_cycle(tmp_path, project, box):
    # the collector is paused while converting: a cycle would keep the whole behavior alive
    import gc
    from naoqi_qicore.converter.api import convert
    scripts = ["print 'leaves no cycle'\n", "def broken(:\n    pass  # leaves no cycle\n"]
    source = tmp_path / "behavior.xar"
    source.write_bytes(project("".join(box("Box%d" % index, index + 1, script)
                                       for index, script in enumerate(scripts))))
    for warm_up in ("print 'fissix loaded'\n", "def loaded(:\n    pass\n"):
        port_script(warm_up)  # fissix's first use builds its tables (and drops some)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        result = convert(source, tmp_path / "out")
        assert result.behaviors[0].ported and result.behaviors[0].failed
        del result
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()


def test_await_named_as_in_python2_is_found_although_it_parses():
    # Python 3 parses it; only its code generator refuses it
    result = port_script("def wait(f):\n    return await(f)\n")
    assert not result.ported and "await" in result.error


def test_port_scripts_answers_in_order_from_one_cache():
    sources = ["print 'one'\n", "x = 1\n", "print 'one'\n"]
    results = port_scripts(sources)
    assert [result.ported for result in results] == [True, False, True]
    assert results[0] is results[2] is port_script(sources[0])


def test_warnings_made_errors_do_not_change_a_verdict():
    source = "import re\npattern = re.compile('\\d+')\n"  # an invalid escape: a warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = port_script(source)
    assert result.code == source and not result.ported and result.error is None


#: indentation mixing tabs and spaces that Python 2 read as 8 columns per tab (a TabError
#: for Python 3), with tabs inside strings (one spanning lines, its lines starting with tabs)
MIXED_TABS = ('class MyClass(GeneratedClass):\n'
              '    def onInput_onStart(self):\n'
              '\tif True:\n'
              '\t    text = "a\\tb"\n'
              '        block = """\n'
              '\tkept\ttab\n'
              '  \t"""\n'
              '  \treturn text, block\n')


def test_tabs_mixed_with_spaces_are_expanded_as_python2_read_them():
    from naoqi_qicore.converter.pyport import expand_indentation_tabs
    try:
        compile(MIXED_TABS, "<test>", "exec")
    except TabError:
        pass
    else:
        raise AssertionError("the example must be a TabError for Python 3")
    result = port_script(MIXED_TABS)
    assert result.ported and result.error is None and compiles(result.code)
    assert result.code == expand_indentation_tabs(MIXED_TABS)
    lines = result.code.split("\n")
    assert lines[2] == " " * 8 + "if True:"
    assert lines[3] == " " * 12 + 'text = "a\\tb"'
    assert lines[5] == "\tkept\ttab"  # inside the string: the string's own tabs
    assert lines[6] == '  \t"""' and lines[7] == " " * 8 + "return text, block"
    scope = {"GeneratedClass": object}
    exec(compile(result.code, "<test>", "exec"), scope)
    assert scope["MyClass"]().onInput_onStart() == ("a\tb", "\n\tkept\ttab\n  \t")


def test_tabs_are_expanded_along_with_python2_syntax():
    source = "def f(x):\n        if x:\n\t    print 'yes',\n\treturn 0777\n"
    result = port_script(source)
    assert result.ported and result.error is None and compiles(result.code)
    assert result.code == ("def f(x):\n        if x:\n            print('yes', end=' ')\n"
                           "        return 0o777\n")


def test_a_script_that_compiles_keeps_its_tabs():
    source = "def f():\n\tif True:\n\t\treturn '\t'\n"
    result = port_script(source)
    assert (result.code, result.ported, result.error) == (source, False, None)


def test_a_script_with_tabs_that_cannot_be_ported_keeps_its_text():
    source = "def f():\n        if 1:\n\t    x = = 1\n"
    result = port_script(source)
    assert not result.ported and result.error and result.code == source
