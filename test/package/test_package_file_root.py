"""naoqi_qicore.file_root: files below a root reached by handles, never outside it."""
import os
import threading
import time

import pytest

from naoqi_qicore.file_root import FileRoot, OutsideRootError, RootedPath


@pytest.fixture
def places(tmp_path):
    """A root holding ``a/b``, and a folder ``outside`` holding ``secret.txt``."""
    root = tmp_path / "root"
    (root / "a" / "b").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("keep")
    return root, outside


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_files_are_written_read_listed_and_removed_below_the_root(places) -> None:
    root, _ = places
    with FileRoot(root, "the test root") as files:
        files.write_bytes("a/b/c.txt", b"hello")
        assert (root / "a/b/c.txt").read_bytes() == b"hello"
        with files.open_read("a/b/c.txt") as stream:
            assert stream.read() == b"hello"
        files.make_dirs("x/y/z")
        assert files.is_dir("x/y/z") and files.is_file("a/b/c.txt")
        assert files.names("a/b") == ["c.txt"]
        assert files.remove("a") and not (root / "a").exists()
        assert not files.remove("a")
        assert files.stat("a/b/c.txt") is None


def test_a_link_beneath_the_root_is_followed_one_leading_out_is_refused(places) -> None:
    root, outside = places
    (root / "inside").symlink_to("a/b")
    (root / "a" / "up").symlink_to("../a")
    (root / "a" / "out").symlink_to(str(outside))
    (root / "a" / "climb").symlink_to("../../outside")
    with FileRoot(root, "the test root", display="/") as files:
        files.write_bytes("inside/via-link.txt", b"1")
        assert (root / "a/b/via-link.txt").read_bytes() == b"1"
        assert files.is_file("a/up/b/via-link.txt")
        for place in ("a/out/secret.txt", "a/climb/secret.txt", "../outside/secret.txt"):
            with pytest.raises(OutsideRootError) as refused:
                files.open_read(place)
            assert "leads out of the test root" in str(refused.value)
            assert str(root) not in str(refused.value)  # shown under its display name
            with pytest.raises(OutsideRootError):
                files.write_bytes(place, b"changed")
            with pytest.raises(OutsideRootError):
                files.make_dirs(place.rsplit("/", 1)[0] + "/new")
        assert (outside / "secret.txt").read_text() == "keep"
        assert sorted(os.listdir(outside)) == ["secret.txt"]


def test_a_write_replaces_links_and_hard_links_never_writes_through_them(places) -> None:
    root, outside = places
    os.link(outside / "secret.txt", root / "hard.txt")
    (root / "soft.txt").symlink_to(outside / "secret.txt")
    with FileRoot(root) as files:
        with pytest.raises(OutsideRootError, match="hard link"):
            files.open_read("hard.txt")
        files.write_bytes("hard.txt", b"new")
        files.write_bytes("soft.txt", b"new")
    assert (outside / "secret.txt").read_text() == "keep"
    assert (root / "hard.txt").read_bytes() == b"new" and not (root / "soft.txt").is_symlink()


def test_removing_a_tree_removes_its_links_not_what_they_point_to(places) -> None:
    root, outside = places
    (root / "a" / "b" / "out").symlink_to(outside)
    (root / "a" / "b" / "file").symlink_to(outside / "secret.txt")
    with FileRoot(root) as files:
        assert files.remove("a")
    assert not (root / "a").exists() and (outside / "secret.txt").read_text() == "keep"


def test_a_failed_write_leaves_nothing(places) -> None:
    root, _ = places
    (root / "kept.txt").write_text("old")
    with FileRoot(root) as files, pytest.raises(RuntimeError):
        with files.replace("kept.txt") as stream:
            stream.write(b"half")
            raise RuntimeError("interrupted")
    assert (root / "kept.txt").read_text() == "old" and sorted(os.listdir(root)) == [
        "a", "kept.txt"]


def test_a_fifo_is_no_file_and_does_not_block(places) -> None:
    root, _ = places
    os.mkfifo(root / "pipe")
    with FileRoot(root) as files, pytest.raises(OSError, match="not a regular file"):
        files.open_read("pipe")


def test_copy_in_copies_a_tree_of_this_machine(places, tmp_path) -> None:
    root, outside = places
    source = tmp_path / "source"
    (source / "sub").mkdir(parents=True)
    (source / "sub" / "f.txt").write_text("content")
    (source / "skip").mkdir()
    (source / "dangling").symlink_to(tmp_path / "nothing")
    os.utime(source / "sub" / "f.txt", (1_000_000, 1_000_000))
    with FileRoot(root) as files:
        files.copy_in(source, "copy", skipped=("skip",))
    assert sorted(os.listdir(root / "copy")) == ["sub"]
    assert (root / "copy/sub/f.txt").read_text() == "content"
    assert (root / "copy/sub/f.txt").stat().st_mtime == 1_000_000


def test_a_rooted_path_names_a_place_and_hands_back_handles(places) -> None:
    root, _ = places
    files = FileRoot(root, display="/robot")
    place = RootedPath(files, "a") / "b/c.txt"
    assert place.relative == "a/b/c.txt" and place.name == "c.txt"
    assert place.shown == "/robot/a/b/c.txt" and place.path == root / "a/b/c.txt"
    place.write_bytes(b"x")
    assert place.read_bytes() == b"x" and place.parent.is_dir()
    with place.parent.folder() as folder:
        assert folder.names() == ["c.txt"] and folder.shown("c.txt") == "/robot/a/b/c.txt"
    files.close()


def test_handles_do_not_pile_up(places) -> None:
    root, _ = places
    (root / "link").symlink_to("a")
    with FileRoot(root) as files:
        files.write_bytes("a/f", b"1")
        before = _open_descriptors()
        for _ in range(200):
            files.write_bytes("link/b/g", b"2")
            files.is_file("link/f")
            files.open_read("link/f").close()
            with pytest.raises(FileNotFoundError):
                files.open_read("missing/f")
            files.remove("link/b/g")
        # no more than before (another test's leftover thread in this process may close one)
        assert _open_descriptors() <= before


def test_a_folder_swapped_for_a_link_meanwhile_never_leads_out(places) -> None:
    """A folder replaced by a link to a folder outside, again and again, while files are
    written into it, read from it and removed: nothing outside changes."""
    root, outside = places
    folder = root / "a" / "b"
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            try:
                os.rename(folder, root / "a" / "aside")
                os.symlink(outside, folder)
                time.sleep(0.0005)
                os.unlink(folder)
                os.rename(root / "a" / "aside", folder)
                time.sleep(0.0005)  # the folder in place as long as the link
            except OSError:
                pass

    swapper = threading.Thread(target=swap)
    swapper.start()
    written = refused = 0
    try:
        with FileRoot(root) as files:
            started = time.monotonic()
            # two seconds of race, and on until both a write and a refusal happened (a
            # loaded machine may schedule the two threads unevenly)
            while time.monotonic() - started < 2.0 or not (written and refused):
                assert time.monotonic() - started < 60.0, (written, refused)
                try:
                    files.write_bytes("a/b/secret.txt", b"changed")
                    written += 1
                    files.remove("a/b/secret.txt")
                except OSError:
                    refused += 1
    finally:
        stop.set()
        swapper.join()
    assert (outside / "secret.txt").read_text() == "keep"
    assert sorted(os.listdir(outside)) == ["secret.txt"]
