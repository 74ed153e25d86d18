"""naoqi_qicore: run Choregraphe behaviors for NAO and Pepper from ROS 2.

Layers, each depending only on the ones before it: ``xar`` (behavior model and
parsing), ``converter`` (file-per-object format), ``core`` (behavior engine),
``robot`` (libqi sessions, NAOqi compatibility, simulated robot) and ``ros`` (nodes).
The ``msg`` and ``srv`` subpackages are generated from the package's interfaces.
"""
from pkgutil import extend_path

# The generated ``msg``/``srv`` subpackages may live in another ``naoqi_qicore``
# folder of the path (e.g. a source checkout in front of an installed package).
__path__ = extend_path(__path__, __name__)

__version__ = "0.1.0"
