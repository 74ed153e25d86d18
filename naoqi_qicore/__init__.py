"""naoqi_qicore: run Choregraphe behaviors for NAO and Pepper from ROS 2.

Layers, each depending only on the ones before it: ``xar`` (behavior model and
parsing), ``converter`` (file-per-object format), ``core`` (behavior engine),
``robot`` (libqi sessions, NAOqi compatibility, simulated robot) and ``ros`` (nodes).
The ``msg`` and ``srv`` subpackages are generated from the package's interfaces.
"""
import os as _os
import sys as _sys


def _package_folders(path: list) -> list:
    """``path`` and, after it, every other ``naoqi_qicore`` folder of ``sys.path``.

    The generated ``msg``/``srv`` subpackages may live in another such folder (e.g. a
    source checkout in front of an installed package).  This is what
    ``pkgutil.extend_path`` does; ``pkgutil`` itself is not imported, as it alone would
    cost every ``xar_convert`` process a few milliseconds.
    """
    folders = list(path)
    for entry in _sys.path:
        if isinstance(entry, str):
            folder = _os.path.join(entry, __name__)
            if folder not in folders and _os.path.isdir(folder):
                folders.append(folder)
    return folders


__path__ = _package_folders(__path__)

__version__ = "0.1.0"
