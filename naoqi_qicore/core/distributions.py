"""Which distributions (what pip installs) provide the modules box code imports: the map
the missing-dependency advice reads, and what no distribution provides.

An import name is no distribution name: ``pip install Image`` installs a Django
application, ``pip install clr`` a terminal colouring library, ``pip install google`` a
search client.  So the advice names only what :data:`DISTRIBUTIONS` (and
:data:`NAMESPACE_DISTRIBUTIONS`, for packages several distributions share) says provides
the import, each entry checked against the distribution's own top-level modules (the
tests check again every entry whose distribution is installed); an import it does not
know is told as missing with no command.  :data:`GONE_PY2_MODULES` are Python 2's
standard modules that Python 3 removed and the engine does not give (with what replaces
them), :data:`REMOVED_STDLIB` standard modules later Pythons removed (with what brings
them back), :data:`DOTNET_MODULES` the .NET names IronPython scripts import.
"""
from __future__ import annotations

import re
from typing import Dict, FrozenSet, Optional, Tuple

#: top-level import name -> the distributions providing it (the usual one first)
DISTRIBUTIONS: Dict[str, Tuple[str, ...]] = {
    "Crypto": ("pycryptodome",), "Levenshtein": ("Levenshtein",), "MySQLdb": ("mysqlclient",),
    "OpenSSL": ("pyOpenSSL",), "PIL": ("Pillow",), "PyQt5": ("PyQt5",),
    "PySide2": ("PySide2",), "RPi": ("RPi.GPIO",), "Xlib": ("python-xlib",),
    "aiohttp": ("aiohttp",), "attr": ("attrs",), "autobahn": ("autobahn",),
    "bluetooth": ("PyBluez",), "boto3": ("boto3",), "bs4": ("beautifulsoup4",),
    "bson": ("pymongo",), "certifi": ("certifi",), "chardet": ("chardet",),
    "click": ("click",), "colorama": ("colorama",), "cv2": ("opencv-python",),
    "dateutil": ("python-dateutil",), "deepface": ("deepface",), "dlib": ("dlib",),
    "docx": ("python-docx",), "dotenv": ("python-dotenv",), "emoji": ("emoji",),
    "engineio": ("python-engineio",), "face_recognition": ("face-recognition",),
    "feedparser": ("feedparser",), "firebase_admin": ("firebase-admin",),
    "fitz": ("PyMuPDF",), "flask": ("Flask",), "fuzzywuzzy": ("fuzzywuzzy",),
    "geopy": ("geopy",), "gi": ("PyGObject",), "github": ("PyGithub",),
    "google_auth_oauthlib": ("google-auth-oauthlib",),
    "googleapiclient": ("google-api-python-client",), "googletrans": ("googletrans",),
    "gtts": ("gTTS",), "httplib2": ("httplib2",), "httpx": ("httpx",),
    "ibm_watson": ("ibm-watson",), "imageio": ("imageio",), "imutils": ("imutils",),
    "jinja2": ("Jinja2",), "jwt": ("PyJWT",), "keras": ("keras",), "kivy": ("Kivy",),
    "lxml": ("lxml",), "magic": ("python-magic",), "markdown": ("Markdown",),
    "matplotlib": ("matplotlib",), "mediapipe": ("mediapipe",), "msgpack": ("msgpack",),
    "mutagen": ("mutagen",), "netifaces": ("netifaces",), "networkx": ("networkx",),
    "nltk": ("nltk",), "numpy": ("numpy",), "oauth2client": ("oauth2client",),
    "openai": ("openai",), "openhab": ("python-openhab",), "openpyxl": ("openpyxl",),
    "paho": ("paho-mqtt",), "pandas": ("pandas",), "paramiko": ("paramiko",),
    "pexpect": ("pexpect",), "pkg_resources": ("setuptools",), "playsound": ("playsound",),
    "pptx": ("python-pptx",), "psutil": ("psutil",),
    "psycopg2": ("psycopg2-binary", "psycopg2"), "pyaudio": ("PyAudio",),
    "pyautogui": ("PyAutoGUI",), "pydub": ("pydub",), "pygame": ("pygame",),
    "pyglet": ("pyglet",), "pymongo": ("pymongo",), "pymysql": ("PyMySQL",),
    "pynput": ("pynput",), "pyodbc": ("pyodbc",), "pyowm": ("pyowm",),
    "pyqrcode": ("PyQRCode",), "pyrealsense2": ("pyrealsense2",), "pyttsx3": ("pyttsx3",),
    "pytz": ("pytz",), "pyzbar": ("pyzbar",), "qrcode": ("qrcode",),
    "rapidfuzz": ("rapidfuzz",), "redis": ("redis",), "requests": ("requests",),
    "scipy": ("scipy",), "scratch": ("scratch", "scratchpy"), "serial": ("pyserial",),
    "setuptools": ("setuptools",), "simplejson": ("simplejson",), "six": ("six",),
    "skimage": ("scikit-image",), "sklearn": ("scikit-learn",), "slugify": ("python-slugify",),
    "smbus2": ("smbus2",), "socketio": ("python-socketio",), "socks": ("PySocks",),
    "sounddevice": ("sounddevice",), "soundfile": ("soundfile",),
    "speech_recognition": ("SpeechRecognition",), "spotipy": ("spotipy",),
    "sqlalchemy": ("SQLAlchemy",), "sympy": ("sympy",), "telegram": ("python-telegram-bot",),
    "tensorflow": ("tensorflow",), "termcolor": ("termcolor",), "textblob": ("textblob",),
    "tinytag": ("tinytag",), "torch": ("torch",), "tornado": ("tornado",), "tqdm": ("tqdm",),
    "transformers": ("transformers",), "tweepy": ("tweepy",),
    "twisted": ("Twisted",), "twitter": ("twitter", "python-twitter"), "ujson": ("ujson",),
    "unidecode": ("Unidecode",), "urllib3": ("urllib3",), "usb": ("pyusb",),
    "vlc": ("python-vlc",), "vosk": ("vosk",),
    "watson_developer_cloud": ("watson-developer-cloud",), "websocket": ("websocket-client",),
    "websockets": ("websockets",), "whisper": ("openai-whisper",),
    "wikipedia": ("wikipedia",), "wolframalpha": ("wolframalpha",), "ws4py": ("ws4py",),
    "wx": ("wxPython",), "xlrd": ("xlrd",), "xmltodict": ("xmltodict",),
    "yagmail": ("yagmail",), "yaml": ("PyYAML",), "zeroconf": ("zeroconf",),
    "zmq": ("pyzmq",),
}
#: dotted prefix of a package several distributions share -> the one providing it
NAMESPACE_DISTRIBUTIONS: Dict[str, str] = {
    "google.api_core": "google-api-core", "google.auth": "google-auth",
    "google.oauth2": "google-auth", "google.protobuf": "protobuf",
    "google.generativeai": "google-generativeai", "google.genai": "google-genai",
    "google.cloud.aiplatform": "google-cloud-aiplatform",
    "google.cloud.bigquery": "google-cloud-bigquery",
    "google.cloud.dialogflow": "google-cloud-dialogflow",
    "google.cloud.firestore": "google-cloud-firestore",
    "google.cloud.language": "google-cloud-language",
    "google.cloud.pubsub": "google-cloud-pubsub", "google.cloud.speech": "google-cloud-speech",
    "google.cloud.storage": "google-cloud-storage",
    "google.cloud.texttospeech": "google-cloud-texttospeech",
    "google.cloud.translate": "google-cloud-translate",
    "google.cloud.vision": "google-cloud-vision",
    "azure.cognitiveservices.speech": "azure-cognitiveservices-speech",
    "azure.identity": "azure-identity", "azure.storage.blob": "azure-storage-blob",
    "ruamel.yaml": "ruamel.yaml", "zope.interface": "zope.interface",
}
#: Python 2's standard modules that Python 3 removed and the engine does not give -> what
#: replaces them ("" when nothing does)
GONE_PY2_MODULES: Dict[str, str] = {
    "new": "types", "popen2": "subprocess", "mimetools": "email", "rfc822": "email",
    "MimeWriter": "email", "mimify": "email", "multifile": "email", "mhlib": "mailbox",
    "htmllib": "html.parser", "sgmllib": "html.parser", "xmllib": "xml.sax or xml.etree",
    "dircache": "os.listdir", "statvfs": "os.statvfs", "posixfile": "fcntl.lockf",
    "compiler": "ast", "hotshot": "cProfile", "imputil": "importlib", "ihooks": "importlib",
    "fpformat": "str.format", "dl": "ctypes", "bsddb": "dbm", "dbhash": "dbm",
    "_winreg": "winreg, on Windows", "user": "", "Bastion": "", "rexec": "", "imageop": "",
    "audiodev": "", "sunaudiodev": "", "toaiff": "", "gopherlib": "", "cl": "", "al": "",
}
#: standard modules of Python 2 and of Python 3 until 3.11-3.12, removed since -> the
#: distribution bringing them back ("" when none does)
REMOVED_STDLIB: Dict[str, str] = dict(
    {name: "standard-" + name for name in (
        "aifc", "asynchat", "asyncore", "cgi", "cgitb", "chunk", "crypt", "imghdr", "mailcap",
        "nntplib", "pipes", "smtpd", "sndhdr", "sunau", "telnetlib", "uu", "xdrlib")},
    audioop="audioop-lts", distutils="setuptools", imp="")
#: what replaces a removed standard module nothing brings back
REMOVED_STDLIB_REPLACEMENTS = {"imp": "importlib"}
#: the .NET names IronPython scripts import (no Python package has them)
DOTNET_MODULES: FrozenSet[str] = frozenset(("clr", "System", "Microsoft"))
_VERSIONED = re.compile(r"_v\d\w*$")  # google.cloud.speech_v1p1beta1: google.cloud.speech


def distributions(module: str, dotted: str = "") -> Tuple[str, ...]:
    """The distributions providing the top-level ``module`` imported as ``dotted``
    (``google.cloud.speech_v1``: its namespace package's one), () when none is known."""
    if dotted.startswith(module + "."):
        parts = dotted.split(".")
        for depth in range(len(parts), 1, -1):
            prefix = ".".join(parts[:depth - 1] + [_VERSIONED.sub("", parts[depth - 1])])
            if prefix in NAMESPACE_DISTRIBUTIONS:
                return (NAMESPACE_DISTRIBUTIONS[prefix],)
    known = DISTRIBUTIONS.get(module, ())
    if not known and REMOVED_STDLIB.get(module):
        return (REMOVED_STDLIB[module],)
    return known


def unavailable_reason(module: str) -> Optional[str]:
    """Why nothing pip installs gives the top-level ``module`` to Python 3 (Python 2's
    standard library, .NET...), None when something may."""
    if module in GONE_PY2_MODULES:
        replacement = GONE_PY2_MODULES[module]
        return "Python 2's standard library, gone from Python 3" + (
            ": %s replaces it" % replacement if replacement else "")
    if module in REMOVED_STDLIB and not REMOVED_STDLIB[module]:
        return "a standard module this Python removed: %s replaces it" % (
            REMOVED_STDLIB_REPLACEMENTS[module])
    if module in DOTNET_MODULES:
        return ".NET's, for IronPython: no Python package has it"
    return None
