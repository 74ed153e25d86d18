"""Conversion speed on the whole corpus, in one process (script porting cache cold).

For each corpus file: parse the .xar, render the file-per-object folder in memory
(naming, state sweep, Python porting), then write it to a temporary folder.  Prints
files/s and MB/s for the conversion (parse + render, wall and CPU time) and with the
disk writes, the slowest file, and the peak RSS.  Targets: the corpus converted in <= 1 s, the largest
file <= 0.3 s, peak RSS <= 300 MB.

    .venv/bin/python bench/bench_convert.py [--corpus ../shared/corpus/files]
"""
import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from naoqi_qicore.converter.writer import install_files, render  # noqa: E402
from naoqi_qicore.xar.errors import XarError  # noqa: E402
from naoqi_qicore.xar.parser import parse_xar_file  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus" / "files")
    options = parser.parse_args()
    files = sorted(options.corpus.glob("*.xar"))
    if not files:
        print("no corpus at %s" % options.corpus)
        return 0
    total_bytes = sum(path.stat().st_size for path in files)
    scratch = Path(tempfile.mkdtemp(prefix="bench-convert-"))
    convert_time = write_time = convert_cpu = 0.0
    slowest = (0.0, "")
    failures = written = 0
    try:
        for index, path in enumerate(files):
            start, start_cpu = time.perf_counter(), time.process_time()
            try:
                rendered, _ = render(parse_xar_file(path))
            except XarError:
                failures += 1
                continue
            converted = time.perf_counter()
            convert_cpu += time.process_time() - start_cpu
            install_files(rendered, scratch / str(index))
            done = time.perf_counter()
            written += len(rendered)
            convert_time += converted - start
            write_time += done - converted
            slowest = max(slowest, (converted - start, path.name))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    megabytes = total_bytes / 1e6
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("corpus: %d files, %.1f MB (%d refused), %d files written"
          % (len(files), megabytes, failures, written))
    print("conversion (parse + render): %.3f s  %.0f files/s  %.1f MB/s"
          % (convert_time, len(files) / convert_time, megabytes / convert_time))
    print("conversion CPU time:         %.3f s  (less sensitive to other load on the machine)"
          % convert_cpu)
    print("with disk writes:            %.3f s  %.0f files/s  %.1f MB/s"
          % (convert_time + write_time, len(files) / (convert_time + write_time),
             megabytes / (convert_time + write_time)))
    print("slowest file: %.3f s (%s)" % slowest)
    print("peak RSS: %.0f MB" % peak_mb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
