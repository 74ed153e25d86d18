"""Frame rate of the live view's page with the largest corpus behavior playing.

Starts ``run_behavior`` on the corpus's 858-box behavior (``daily-scrum``, or the behavior
``--behavior`` gives) with the live view and a scenario saying "Hey Nao" when it listens,
plays it, opens the view in headless chromium (1400 x 900 px) once the behavior runs inside
its boxes (a box whose path starts with ``--past`` is active: by default
``root/select lang/``, where daily-scrum goes once it heard "Hey Nao"), and counts over
``--seconds`` the frames the page draws (``requestAnimationFrame`` callbacks), the frames
the robot is drawn in WebGL, and the robot updates the page receives (one per change of
what the robot reports).  Also prints how long the page took to show the running
diagram.  Target: 30 fps or more of the robot drawing.

    .venv/bin/python bench/bench_live_view.py [--seconds 10] [--corpus ../shared/corpus]
                                              [--behavior FILE.xar --past root/]
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_view_session import REPO, LiveViewSession  # noqa: E402

LARGEST = "daily-scrum-8db260e2.xar"
#: counts frames in the page for ``ms`` milliseconds
FRAME_COUNT = """new Promise((resolve) => {
  const robot = window.liveView.robot;
  const drawn = robot.frames, updates = robot.updates;
  let frames = 0, start = 0;
  const tick = (time) => {
    if (!start) { start = time; }
    else { frames += 1; }
    if (time - start < %d) { requestAnimationFrame(tick); return; }
    resolve({frames: frames, drawn: robot.frames - drawn, updates: robot.updates - updates,
             seconds: (time - start) / 1000});
  };
  requestAnimationFrame(tick);
})"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    parser.add_argument("--behavior", type=Path, default=None,
                        help="the behavior to play (default: the corpus's %s)" % LARGEST)
    parser.add_argument("--past", default="root/select lang/",
                        help="the page is opened once a box whose path starts with this runs")
    arguments = parser.parse_args()
    behavior = arguments.behavior or arguments.corpus / "files" / LARGEST
    if not behavior.is_file():
        print("bench_live_view: %s not found (give --corpus)" % behavior, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        scenario = Path(folder) / "hey_nao.yaml"
        scenario.write_text("steps:\n  - on_call: ALSpeechRecognition.subscribe\n"
                            "    hear: Hey Nao\n")
        with LiveViewSession(behavior, scenario) as session:
            session.control("play")
            started = time.monotonic()
            while not any(path.startswith(arguments.past)
                          for path in session.state()["active_boxes"]):
                if time.monotonic() - started > 60:
                    raise TimeoutError("no box of %s ran" % arguments.past)
                time.sleep(0.1)
            session.page.send("Page.navigate", url=session.url)
            shown = session.page.wait_for(
                "document.querySelector('#diagram g.box.active') ? performance.now() : 0", 30,
                "the running diagram")
            session.page.wait_for("window.liveView.robot.scene && "
                                  "window.liveView.robot.frames > 3", 60, "the robot drawn")
            count = session.page.evaluate(FRAME_COUNT % int(arguments.seconds * 1000))
            state = session.state()
    seconds = count["seconds"]
    print("behavior: %s, %s, running %s" % (
        behavior.name, state["status"], ", ".join(state["active_boxes"]) or "nothing"))
    print("running diagram shown %.0f ms after the page was asked for" % shown)
    print("page: %.1f fps (requestAnimationFrame), robot drawn %.1f times a second, "
          "%.1f robot updates a second, over %.1f s" % (
              count["frames"] / seconds, count["drawn"] / seconds,
              count["updates"] / seconds, seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
