"""Behaviors inside folders, projects, ar archives and zip packages; broken containers."""
import zipfile

import pytest

from naoqi_qicore.converter.api import convert
from naoqi_qicore.converter.ownership import WRITTEN_LIST
from naoqi_qicore.xar.errors import XarError
from naoqi_qicore.xar.sources import read_behaviors

from converter_archives import ar_archive, tar_gz


@pytest.fixture
def xar(project, box):
    return project(box("Say", 1))


def test_folder_and_project(tmp_path, xar):
    (tmp_path / "p" / "behavior_1").mkdir(parents=True)
    (tmp_path / "p" / "two").mkdir()
    (tmp_path / "p" / "behavior_1" / "behavior.xar").write_bytes(xar)
    (tmp_path / "p" / "two" / "main.xar").write_bytes(xar)
    (tmp_path / "p" / "p.pml").write_text(
        '<Package name="p" format_version="4"><BehaviorDescriptions>'
        '<BehaviorDescription name="behavior" src="behavior_1" xar="behavior.xar" />'
        '<BehaviorDescription name="behavior" src="two" xar="main.xar" />'
        '</BehaviorDescriptions></Package>')
    assert [n.name for n in read_behaviors(tmp_path / "p" / "behavior_1")] == ["behavior_1"]
    assert [n.name for n in read_behaviors(tmp_path / "p" / "p.pml")] == ["behavior_1", "two"]
    assert [n.name for n in read_behaviors(tmp_path / "p")] == ["behavior_1", "two"]
    result = convert(tmp_path / "p" / "p.pml", tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        WRITTEN_LIST, "behavior_1", "converted_project.xml", "p.pml", "two"]
    assert [r.output.name for r in result.behaviors] == ["behavior_1", "two"]
    assert (tmp_path / "out" / "two" / "main.py").is_file()
    assert not (tmp_path / "out" / "two" / "main.xar").exists()


def test_crg_and_cbl_are_read_in_memory(tmp_path, xar, box):
    crg = tmp_path / "b.crg"
    crg.write_bytes(ar_archive([("debian-binary", b"2.0\n"), ("control.tar.gz", tar_gz([])),
                                ("data.tar.gz/", tar_gz([("behavior.xar", xar)]))]))
    assert [n.name for n in read_behaviors(crg)] == ["behavior"]
    single = b'<ChoregrapheBox xar_version="3">' + box("Db", 1).encode() + b"</ChoregrapheBox>"
    cbl = tmp_path / "lib.cbl"
    cbl.write_bytes(ar_archive([("data.tar.gz", tar_gz([(".metadata", b"x"),
                                                        ("Database/box.xar", single),
                                                        ("Other/box.xar", single)]))]))
    named = read_behaviors(cbl)
    assert [n.name for n in named] == ["Database/box", "Other/box"]
    assert named[0].behavior.source.endswith("lib.cbl!Database/box.xar")
    convert(cbl, tmp_path / "lib")
    assert sorted(p.name for p in (tmp_path / "lib").iterdir()) == [WRITTEN_LIST, "Database_box",
                                                                     "Other_box"]


def test_pkg(tmp_path, xar):
    pkg = tmp_path / "app.pkg"
    with zipfile.ZipFile(pkg, "w") as archive:
        archive.writestr("manifest.xml", '<package uuid="u" version="1"><behaviors>'
                         '<behavior path="behavior_1" nature="interactive" /></behaviors></package>')
        archive.writestr("behavior_1/behavior.xar", xar)
    assert [n.name for n in read_behaviors(pkg)] == ["behavior_1"]


@pytest.mark.parametrize("suffix, make, expected", [
    (".crg", lambda xar: ar_archive([("data.tar.gz", tar_gz([("behavior.xar", xar)]))])[:-40],
     "truncated"),
    (".crg", lambda xar: b"!<arch>\ndata.tar.gz     0           0     0     100644  99999999  `\n",
     "truncated ar archive"),
    (".crg", lambda xar: b"PK\x03\x04 not ar", "not an ar archive"),
    (".crg", lambda xar: ar_archive([("data.tar.gz", tar_gz([("../../evil.xar", xar)]))]),
     "refusing the member path"),
    (".crg", lambda xar: ar_archive([("data.tar.gz", b"\x1f\x8b\x08garbage")]), "corrupt"),
    (".crg", lambda xar: ar_archive([("control.tar.gz", b"")]), "no data.tar.gz"),
    (".pkg", lambda xar: b"PK\x05\x06" + b"\x00" * 10, "corrupt package"),
    (".pml", lambda xar: b"<Package/>", "lists no BehaviorDescription"),
    (".pml", lambda xar: b'<Package><BehaviorDescription src="../../etc" xar="x.xar"/></Package>',
     "refusing the member path"),
    (".txt", lambda xar: b"hello", "unsupported input"),
])
def test_broken_containers_give_clean_errors(tmp_path, xar, suffix, make, expected):
    path = tmp_path / ("in" + suffix)
    path.write_bytes(make(xar))
    with pytest.raises(XarError, match=expected) as caught:
        convert(path, tmp_path / "out")
    assert "\n" not in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_pkg_member_escaping_and_bomb_sizes(tmp_path, xar):
    evil = tmp_path / "evil.pkg"
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("../outside.xar", xar)
    with pytest.raises(XarError, match="refusing the member path"):
        read_behaviors(evil)
    bomb = tmp_path / "bomb.pkg"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.xml", '<package><behaviors><behavior path="b"/></behaviors>'
                         '</package>')
        archive.writestr("b/behavior.xar", b" " * (70 * 1024 * 1024))
    with pytest.raises(XarError, match="larger than"):
        read_behaviors(bomb)


def test_mutated_and_truncated_xar_never_crash_nor_write(tmp_path, reference_dir):
    original = (reference_dir / "un_wait_deux" / "input.xar").read_bytes()
    variants = [original[:cut] for cut in range(0, len(original), len(original) // 23)]
    variants += [original.replace(b'id="2"', b'id="1"', 1), original.replace(b"<Link ", b"<Lnk ", 1),
                 original.replace(b'xar_version="3"', b'xar_version="9"'),
                 original.replace(b"indexofinput=\"2\"", b"indexofinput=\"x\"", 1),
                 original.replace(b"<Box ", b"<Box id=\"3\" ", 1)]
    for index, data in enumerate(variants):
        source = tmp_path / ("v%d.xar" % index)
        source.write_bytes(data)
        try:
            convert(source, tmp_path / "out" / str(index))
        except XarError as error:
            assert "\n" not in str(error) and str(source) in str(error)
    written = {p.name for p in (tmp_path / "out").iterdir()} if (tmp_path / "out").exists() else set()
    assert all(name.isdigit() for name in written)
    assert {p.name for p in tmp_path.iterdir()} <= {"out"} | {"v%d.xar" % i for i in range(len(variants))}


def test_absurdly_large_inputs_are_refused_before_reading(tmp_path):
    huge = tmp_path / "huge.xar"
    with open(huge, "wb") as stream:
        stream.truncate(65 * 1024 * 1024)  # sparse: no real disk use
    with pytest.raises(XarError, match="larger than"):
        read_behaviors(huge)
