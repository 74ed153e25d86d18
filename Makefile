# naoqi_qicore: `make demo` runs the demo on the simulated robot, `make test` runs the tests,
# `make check` the quick ones (no ROS nodes, no corpus sweeps, few programs started).
# Both set everything up first (`make setup`): a virtual environment in .venv with pinned
# ROS 2 wheels, libqi and tools, and this package with its generated ROS 2 interfaces.

PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PACKAGE_SOURCES := $(shell find naoqi_qicore msg srv action launch resource examples -type f \
	-not -path '*/__pycache__/*' -not -path '*/node_modules/*' 2>/dev/null) setup.py setup.cfg \
	package.xml

#: the quick loop: what `make check` runs
CHECK_TESTS := test/converter test/core test/sim test/package
#: test processes run side by side (pytest-xdist; a test file stays in one process, so the
#: fixtures its tests share are made once); `make test TEST_WORKERS=0` runs them in one.
#: A process that crashes fails the run: with a file per process, xdist 3.8.0 waits forever
#: for a replacement's work.  Files go to the workers in the order test/conftest.py gives
#: (the long ones first), not xdist's (the files with most tests first).  The tests wait a
#: lot (the robot's real-time motions and speech, programs starting): on 2 cores, 3 workers
#: kept 1.4 of them busy (461 s), 5 workers 1.8 (408 s), 6 workers 370 s
TEST_WORKERS ?= 6
#: the quick tests mostly wait too: on 2 cores, 4 workers took 60-69 s, 6 workers 54 s;
#: `make check CHECK_WORKERS=0` runs them in one
CHECK_WORKERS ?= 6
PARALLEL := --dist loadfile --no-loadscope-reorder --max-worker-restart 0

.PHONY: setup test check demo clean

setup: $(VENV)/.package-installed

$(VENV)/.requirements-installed: .setup/requirements.txt .setup/check-tools.sh \
		.setup/extend-activate.sh
	.setup/check-tools.sh $(PYTHON)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r .setup/requirements.txt
	.setup/extend-activate.sh $(VENV)
	touch $@

$(VENV)/.package-installed: $(VENV)/.requirements-installed $(PACKAGE_SOURCES) \
		.setup/link-executables.sh
	$(PY) -m pip install --quiet --disable-pip-version-check --no-build-isolation \
	  --no-deps --force-reinstall .
	.setup/link-executables.sh $(VENV)
	touch $@

test: setup
	.setup/test-tools.sh
	$(PY) -m pytest -q -n $(TEST_WORKERS) $(PARALLEL)

check: setup
	$(PY) -m pytest -q -n $(CHECK_WORKERS) $(PARALLEL) -m "not slow and not corpus" \
	  $(CHECK_TESTS)

demo: setup
	$(PY) -m naoqi_qicore.ros.demo --behavior examples/wave_hello/behavior.xar --out .demo

clean:
	rm -rf $(VENV) build *.egg-info
