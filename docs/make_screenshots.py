"""Makes the live view's screenshots of the README (``docs/live_view_*.png``): the page in
headless chromium at 1400 x 900 px, scaled down to 1000 px wide.

* ``live_view_nao.png``: examples/wave_hello on a simulated NAO, paused while it waves;
* ``live_view_pepper.png``: a Pepper project of the tests (an image of its own on the
  tablet, then listening: a scenario says "yes" and touches its head), the boxes' tree open.

    .venv/bin/python docs/make_screenshots.py [--out docs]
"""
import argparse
import io
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "test" / "ros"))

from live_view_session import LiveViewSession  # noqa: E402
from view_behaviors import tablet_project  # noqa: E402

WIDTH = 1000


def save(png: bytes, path: Path) -> None:
    """``png`` scaled down to :data:`WIDTH` px wide, in a palette of 256 colours."""
    from PIL import Image
    image = Image.open(io.BytesIO(png)).convert("RGB")
    image = image.resize((WIDTH, round(image.height * WIDTH / image.width)), Image.LANCZOS)
    image.quantize(256, dither=Image.Dither.NONE).save(path, optimize=True)
    print("%s: %d x %d, %d bytes" % (path, image.width, image.height, path.stat().st_size))


def nao(out: Path) -> None:
    with LiveViewSession(REPO / "examples" / "wave_hello" / "behavior.xar", robot="nao") as view:
        view.open()
        view.control("play")
        view.page.wait_for("window.liveView.diagram.state.frame >= 42", 30, "waving")
        view.control("pause")
        view.page.wait_for("document.getElementById('status').textContent === 'PAUSED'")
        view.page.evaluate("new Promise((done) => setTimeout(done, 500))")  # drawn still
        save(view.page.screenshot(), out / "live_view_nao.png")


def pepper(out: Path) -> None:
    with tempfile.TemporaryDirectory() as folder:
        scenario = Path(folder) / "listen.yaml"
        scenario.write_text("steps:\n  - on_call: ALSpeechRecognition.subscribe\n"
                            "    hear: 'yes'\n  - touch: head_front\n")
        with LiveViewSession(tablet_project(Path(folder)), scenario, robot="pepper") as view:
            view.open()
            view.page.click("#tree-toggle")
            view.control("play")
            view.page.wait_for("!document.getElementById('heard').hidden && "
                               "document.getElementById('tablet-image').naturalWidth > 0", 30,
                               "the image on the tablet and the words heard")
            view.page.evaluate("new Promise((done) => setTimeout(done, 300))")
            save(view.page.screenshot(), out / "live_view_pepper.png")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs")
    arguments = parser.parse_args()
    nao(arguments.out)
    pepper(arguments.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
