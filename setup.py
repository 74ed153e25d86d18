"""Build of naoqi_qicore: an ament_python package that also generates its ROS 2 interfaces.

``build_py`` first runs the small CMake project in ``resource/interfaces`` (rosidl), installs
it into a staging folder, then ships the generated Python modules inside the
``naoqi_qicore`` package and the libraries and ament index entries as data files of the
install prefix.  This works under ``colcon build`` and under ``pip install``.

naoqi_bridge publishes ``/tf`` and ``/tf_static`` (``tf2_msgs/msg/TFMessage``).  Where the
environment has no ``tf2_msgs`` (ROS 2 from Python wheels has none), the CMake project in
``resource/tf2_msgs`` generates it the same way and it is installed beside this package: its
Python package ``tf2_msgs`` in the same site-packages, its libraries, ``.msg`` and ament
index entries in the same prefix.  Where a ROS 2 installation or workspace has it (a prefix
of ``CMAKE_PREFIX_PATH`` or ``AMENT_PREFIX_PATH`` holds its CMake package), that one is used
and nothing is generated.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
from glob import glob
from pathlib import Path

from setuptools import Distribution, find_packages, setup
from setuptools.command.build_py import build_py
from setuptools.command.develop import develop

PACKAGE = 'naoqi_qicore'
ROOT = Path(__file__).resolve().parent
CMAKE_PROJECT = ROOT / 'resource' / 'interfaces'
#: the interface package naoqi_bridge's transforms need, and the project generating it
TF2_MSGS = 'tf2_msgs'
TF2_MSGS_PROJECT = ROOT / 'resource' / 'tf2_msgs'
#: the live view's page, and the files of the libraries it installs from the npm registry
PAGE = ROOT / PACKAGE / 'ros' / 'live_view_page'
PAGE_LIBRARY_FILES = ('node_modules/three/build/three.module.js',
                      'node_modules/three/build/three.core.js',
                      'node_modules/three/LICENSE')


def _python_include_dirs():
    """Header folders of this interpreter and of NumPy, for the rosidl Python extensions."""
    dirs = [sysconfig.get_paths()['include']]
    try:
        import numpy
    except ImportError:
        pass
    else:
        dirs.append(numpy.get_include())
    return ';'.join(dirs)


def _with_prefix(variable):
    """``variable``'s search path with this interpreter's prefix appended."""
    paths = [p for p in os.environ.get(variable, '').split(os.pathsep) if p]
    if sys.prefix not in paths:
        paths.append(sys.prefix)
    return paths


def _run(command):
    """Run a build tool, its output going to stderr (colcon parses our stdout)."""
    print('naoqi_qicore: ' + ' '.join(command), file=sys.stderr, flush=True)
    env = dict(os.environ, AMENT_PREFIX_PATH=os.pathsep.join(_with_prefix('AMENT_PREFIX_PATH')))
    subprocess.run(command, check=True, stdout=sys.stderr, stderr=sys.stderr, env=env)


def _installed_elsewhere(package):
    """Whether a prefix the build searches (``CMAKE_PREFIX_PATH``, ``AMENT_PREFIX_PATH``,
    this interpreter's) holds the CMake package of ``package``: a ROS 2 installation's or a
    workspace's, never one this build generated (it installs no CMake package)."""
    prefixes = _with_prefix('CMAKE_PREFIX_PATH') + _with_prefix('AMENT_PREFIX_PATH')
    return any((Path(prefix) / 'share' / package / 'cmake' / (package + 'Config.cmake')).is_file()
               for prefix in prefixes)


def _build_cmake_project(command, source, name):
    """Configure, build and install the rosidl CMake project ``source`` in the build folder
    ``name``; the folder it was installed into (a staging prefix)."""
    build_temp = Path(command.get_finalized_command('build').build_temp).resolve()
    build_dir = build_temp / name
    stage = build_dir / 'stage'
    if stage.exists():
        shutil.rmtree(stage)
    # No build type, as colcon builds an ament_cmake interface package without --cmake-args:
    # the generated code compiles in about half the time of Release (-O3), and messages
    # are (de)serialized as fast (the Python conversion dominates).
    _run(['cmake', '-S', str(source), '-B', str(build_dir),
          '-DCMAKE_BUILD_TYPE=',
          '-DBUILD_TESTING=OFF',
          '-DCMAKE_INSTALL_PREFIX=' + str(stage),
          '-DCMAKE_PREFIX_PATH=' + ';'.join(_with_prefix('CMAKE_PREFIX_PATH')),
          '-DPython3_EXECUTABLE=' + sys.executable,
          '-DNAOQI_QICORE_PYTHON_INCLUDE_DIRS=' + _python_include_dirs()])
    _run(['cmake', '--build', str(build_dir), '--parallel', str(os.cpu_count() or 2)])
    _run(['cmake', '--install', str(build_dir)])
    return stage


def _generate_interfaces(command):
    """Generate this package's interfaces, and tf2_msgs where the environment has none;
    ``(Python package, staging prefix)`` of each."""
    generated = [(PACKAGE, _build_cmake_project(command, CMAKE_PROJECT, 'interfaces'))]
    if not _installed_elsewhere(TF2_MSGS):
        print('naoqi_qicore: no tf2_msgs installed: generating it', file=sys.stderr)
        generated.append((TF2_MSGS, _build_cmake_project(command, TF2_MSGS_PROJECT, TF2_MSGS)))
    return generated


def _ship_generated(command, stage, package, target):
    """Copy the Python package ``package`` rosidl generated in ``stage`` into ``target`` (the
    folder holding the installed packages) and add every other file of the staging prefix
    but its site-packages (libraries, ament index, .msg/.srv/.idl) to the data files of the
    install prefix."""
    python_dirs = list(stage.glob('lib/python*/site-packages/' + package))
    if len(python_dirs) != 1:
        raise RuntimeError('rosidl produced no Python package under ' + str(stage))
    generated = python_dirs[0]
    for path in sorted(generated.rglob('*')):
        relative = path.relative_to(generated)
        if path.is_dir() or path.suffix == '.c' or '__pycache__' in relative.parts:
            continue  # generator sources stay out
        if package == PACKAGE and relative == Path('__init__.py'):
            continue  # the package's own __init__.py stays
        destination = target / package / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, destination)
    data_files = command.distribution.data_files
    by_dir = {}
    for path in sorted(stage.rglob('*')):
        if path.is_dir() or generated.parent in path.parents:
            continue  # the site-packages: the package above, rosidl's egg-info
        relative = path.relative_to(stage)
        by_dir.setdefault(str(relative.parent), []).append(str(path))
    # install_data (or colcon's symlink_data) holds this very list: extend it in place.
    data_files.extend(sorted(by_dir.items()))


def _install_page_libraries():
    """Install what the live view's page needs from the npm registry (``npm ci`` in its
    folder, as its ``package-lock.json`` pins it) when it is not there yet; without npm,
    or when the registry cannot be reached, say that the page will draw no 3D robot."""
    if all((PAGE / name).is_file() for name in PAGE_LIBRARY_FILES):
        return
    npm = shutil.which('npm')
    try:
        if npm is None:
            raise OSError('npm not found')
        _run([npm, 'ci', '--prefix', str(PAGE), '--no-audit', '--no-fund', '--ignore-scripts'])
    except (OSError, subprocess.CalledProcessError) as error:
        print('naoqi_qicore: %s: the live view will draw no 3D robot (install npm, e.g. '
              'apt-get install npm, then build again)' % error, file=sys.stderr)


class BuildPyWithInterfaces(build_py):
    """build_py that generates msg/ and srv/ with rosidl before copying the package."""

    def run(self):
        generated = _generate_interfaces(self)
        _install_page_libraries()
        super().run()
        for package, stage in generated:
            _ship_generated(self, stage, package, Path(self.build_lib))


class DevelopWithInterfaces(develop):
    """develop (``colcon build --symlink-install``, ``setup.py develop``) that generates the
    interfaces too: the package itself stays a link to the sources, the generated modules go
    to a ``naoqi_qicore`` folder of the install's site-packages (the package's
    ``__init__`` extends its ``__path__`` to it) and the rest to the data files."""

    def run(self):
        if self.uninstall:
            super().run()
            return
        generated = _generate_interfaces(self)
        _install_page_libraries()
        super().run()
        for package, stage in generated:
            _ship_generated(self, stage, package, Path(self.install_dir))


def _tree(source, destination):
    """``data_files`` entries installing every file under the folder ``source`` into
    ``destination``, keeping its sub-folders."""
    by_dir = {}
    for path in sorted(Path(source).rglob('*')):
        if path.is_file() and '__pycache__' not in path.parts:
            folder = Path(destination) / path.parent.relative_to(source)
            by_dir.setdefault(str(folder), []).append(str(path))
    return sorted(by_dir.items())


class BinaryDistribution(Distribution):
    """The package ships compiled typesupport libraries: it is not pure Python."""

    def has_ext_modules(self):
        return True


setup(
    name=PACKAGE,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    package_data={PACKAGE: ['py.typed', 'ros/live_view_page/*']
                  + ['ros/live_view_page/' + name for name in PAGE_LIBRARY_FILES]},
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + PACKAGE]),
        ('share/' + PACKAGE, ['package.xml']),
        ('share/' + PACKAGE + '/launch', glob('launch/*.launch.py')),
        ('share/' + PACKAGE + '/config', glob('config/*.yaml')),
    ] + _tree('examples', 'share/' + PACKAGE + '/examples'),
    install_requires=['setuptools'],
    zip_safe=False,
    maintainer='naoqi_qicore maintainers',
    maintainer_email='maintainers@naoqi-qicore.org',
    description='Run Choregraphe behaviors for NAO and Pepper robots from ROS 2.',
    license='Apache-2.0',
    tests_require=['pytest'],
    cmdclass={'build_py': BuildPyWithInterfaces, 'develop': DevelopWithInterfaces},
    distclass=BinaryDistribution,
    entry_points={
        'console_scripts': [
            'xar_convert = naoqi_qicore.converter.cli:console_main',
            'naoqi_sim = naoqi_qicore.robot.sim.cli:main',
            'behavior_runner = naoqi_qicore.ros.behavior_runner:main',
            'naoqi_bridge = naoqi_qicore.ros.bridge:main',
            'xar_convert_node = naoqi_qicore.ros.convert_node:main',
            'run_behavior = naoqi_qicore.ros.launcher:main',
        ],
    },
)
