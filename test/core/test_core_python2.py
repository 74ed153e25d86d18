"""The Python 2 that box scripts were written for: builtins and modules (core.py2)."""
import hashlib
import sys

import pytest

from naoqi_qicore.core.py2_text import Py2Bytes
from naoqi_qicore.core.script import box_builtins, compile_box_script


def run(code: str) -> dict:
    """Run ``code`` as box code does and return its namespace."""
    namespace = {"__builtins__": box_builtins({}), "__name__": "box"}
    exec(compile_box_script(code), namespace)
    return namespace


def test_encoded_text_mixes_with_text_as_python2_str():
    names = run(r"""
# -*- coding: utf-8 -*-
import hashlib, json
words = u"oui/non/peut-être".encode("utf-8").split("/")
sentence = "Tu as dit " + words[0] + "."
formatted = "%s ou %s" % (words[0], words[1])
found = "oui" in words and words[2] == "peut-être" and words[0].startswith(("x", "o"))
digest = hashlib.md5("é".encode("utf-8")).hexdigest()
document = json.dumps({"word": words[1]})
first = words[0][0]
ascii_only = u"héhé".encode("ascii", "ignore")
again = "déjà".decode("utf-8")
raw = b"\xc3\xa9".decode("utf-8")
basic = "abc".encode("base64").replace("\n", "")
table = {words[0]: 1}
encoder = json.JSONEncoder().encode([1])
""")
    assert [str(word) for word in names["words"]] == ["oui", "non", "peut-être"]
    assert isinstance(names["words"][0], Py2Bytes) and bytes(names["words"][0]) == b"oui"
    assert names["sentence"] == "Tu as dit oui." and names["formatted"] == "oui ou non"
    assert names["found"] and names["first"] == "o" and names["table"]["oui"] == 1
    assert names["digest"] == hashlib.md5("é".encode("utf-8")).hexdigest()
    assert names["document"] == '{"word": "non"}'
    assert names["ascii_only"] == "hh" and names["again"] == "déjà" and names["raw"] == "é"
    assert names["basic"] == "YWJj" and names["encoder"] == "[1]"


def test_encode_and_decode_of_other_objects_are_their_own():
    names = run("""
class Codec(object):
    def encode(self, value, twice=False):
        return ("enc", value, twice)
    def decode(self):
        return "dec"
codec = Codec()
results = (codec.encode(1, twice=True), codec.decode())
""")
    assert names["results"] == (("enc", 1, True), "dec")
    with pytest.raises(UnicodeEncodeError):
        run('failed = u"é".encode("ascii")')


def test_range_map_filter_zip_are_lists():
    names = run("""
states = range(3)
states[0] = 'first'
doubled = map(lambda x: 2 * x, [1, 2])
pairs = map(None, [1, 2], [3, 4])
kept = filter(None, [0, 1, 2])
text = filter(str.isdigit, 'a1b2')
firsts = zip('ab', 'cd')[0]
lazy = [i for i in xrange(3)]
""")
    assert names["states"] == ["first", 1, 2]
    assert names["doubled"] == [2, 4]
    assert names["pairs"] == [(1, 3), (2, 4)]
    assert names["kept"] == [1, 2]
    assert names["text"] == "12"
    assert names["firsts"] == ("a", "c")
    assert names["lazy"] == [0, 1, 2]


def test_reload_file_execfile_apply(tmp_path):
    script = tmp_path / "helper.py"
    script.write_text("value = 40 + 2\n")
    names = run("""
import sys, json
same_sys = reload(sys) is sys
same_json = reload(json) is json
with file(%r) as handle:
    first = handle.read()
scope = {}
execfile(%r, scope)
total = apply(lambda a, b, c=0: a + b + c, (1, 2), {'c': 3})
""" % (str(script), str(script)))
    assert names["same_sys"] and names["same_json"]
    assert names["first"] == "value = 40 + 2\n"
    assert names["scope"]["value"] == 42
    assert names["total"] == 6


def test_sys_has_python2_names_and_writes_through():
    marker = "/nonexistent/box/lib"
    names = run("""
import hashlib
import sys
reload(sys)
sys.setdefaultencoding('utf8')
big = sys.maxint
sys.path.append(%r)
sys.box_marker = 1
""" % marker)
    try:
        assert names["big"] == sys.maxsize
        assert marker in sys.path
        assert getattr(sys, "box_marker") == 1
    finally:
        sys.path.remove(marker)
        del sys.box_marker


def test_urllib_and_urllib2_as_in_python2():
    names = run("""
import urllib, urllib2
from urllib import urlencode, quote
from urllib import parse
query = urllib.urlencode({'a': 1})
request = urllib2.Request('http://robot.local/api?x=1')
request.add_header('Content-Type', 'application/x-www-form-urlencoded')
request.add_data(query)
answer = (request.get_data(), request.has_data(), request.get_host(), request.get_type(),
          request.get_selector(), quote('a b'), urlencode({'b': 2}), parse.quote('c d'))
errors = (urllib2.URLError, urllib2.HTTPError, urllib2.build_opener)
""")
    assert names["answer"] == (b"a=1", True, "robot.local", "http", "/api?x=1", "a%20b", "b=2",
                               "c%20d")
    assert all(callable(item) for item in names["errors"])


def test_renamed_modules_and_mutex():
    names = run("""
import Queue, thread, cPickle, StringIO, mutex
from UserDict import UserDict
queue = Queue.Queue()
queue.put(1)
lock = thread.allocate_lock()
buffer = StringIO.StringIO()
buffer.write(u'x')
calls = []
guard = mutex.mutex()
guard.lock(calls.append, 'first')
guard.lock(calls.append, 'second')
guard.unlock()
results = (queue.get(), lock.acquire(), cPickle.loads(cPickle.dumps(3)), buffer.getvalue(),
           calls, dict(UserDict(a=1)))
""")
    assert names["results"] == (1, True, 3, "x", ["first", "second"], {"a": 1})


def test_string_module_functions():
    names = run("""
import string
from string import letters, join
words = string.split('a b c')
answer = (string.join(words, '-'), join(['x', 'y']), string.upper('ab'), string.atoi('ff', 16),
          string.strip('  s '), letters[:3], string.lowercase[-1], string.digits,
          string.Template('$a').substitute(a=1), 'ab'.translate(string.maketrans('a', 'b')))
""")
    assert names["answer"] == ("a-b-c", "x y", "AB", 255, "s", "abc", "z", "0123456789", "1",
                               "bb")


def test_names_python3_took_out_of_the_modules_it_kept():
    names = run("""
import collections, os, time, itertools, types, operator, inspect, cgi, base64, md5, sets
from collections import Mapping, OrderedDict
from HTMLParser import HTMLParser, HTMLParseError
answer = (isinstance(OrderedDict(), Mapping), issubclass(dict, collections.MutableMapping),
          os.getcwdu() == os.getcwd(), time.clock() >= 0, list(itertools.izip('ab', 'cd')),
          types.StringType is str, operator.isCallable(len), operator.div(7, 2),
          inspect.getargspec(lambda a, b=2: a).defaults, cgi.escape('<&>', True),
          base64.encodestring('nao'), base64.b64decode(u'bmFv') + '!',
          md5.new('nao').hexdigest(), sets.Set([1, 1]), HTMLParser().unescape('&lt;b&gt;'),
          issubclass(HTMLParseError, Exception))
""")
    assert names["answer"] == (True, True, True, True, [("a", "c"), ("b", "d")], True, True, 3,
                               (2,), "&lt;&amp;&gt;", "bmFv\n", "nao!",
                               hashlib.md5(b"nao").hexdigest(), {1}, "<b>", True)


def test_modules_python3_renamed_that_fissix_leaves():
    names = run("""
import email.Utils
from email.MIMEText import MIMEText
from email import MIMEMultipart
import xml.etree.cElementTree as ET
import elementtree.ElementTree
import dummy_threading, future_builtins
answer = (email.Utils.formataddr(('NAO', 'nao@example.org')), MIMEText('hi').get_payload(),
          MIMEMultipart.MIMEMultipart().is_multipart(), ET.fromstring('<a/>').tag,
          elementtree.ElementTree.fromstring('<b/>').tag, dummy_threading.Lock is not None,
          list(future_builtins.map(abs, [-1])))
""")
    assert names["answer"] == ("NAO <nao@example.org>", "hi", True, "a", "b", True, [1])


def test_the_box_environments_own_modules_have_their_python2_names():
    """The behavior's ``time`` (its sleep ends with the behavior) and ``os`` (robot paths)
    keep the names Python 2 gave them; a renamed module is the environment's when it has
    it (``dummy_threading``: its ``threading``)."""
    import os
    import threading
    import time
    import types
    own_time = types.ModuleType("time")
    own_time.sleep = lambda seconds: None
    own_threading = types.ModuleType("threading")
    namespace = {"__builtins__": box_builtins({"time": own_time, "os": os,
                                               "threading": own_threading}),
                 "__name__": "box"}
    exec(compile_box_script("import time, os, dummy_threading\n"
                            "answer = (time.clock, time.sleep, os.getcwdu, dummy_threading)\n"),
         namespace)
    clock, sleep, getcwdu, dummy = namespace["answer"]
    assert clock is time.perf_counter and sleep is own_time.sleep and getcwdu is os.getcwd
    assert dummy is own_threading and threading is not own_threading
