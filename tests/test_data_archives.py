"""Compressed and archived files opened by their content, bounded, refused when hostile.

Every file is generated here: a gzipped GEO series matrix (as GEO serves it), a Kaggle-style zip
of one CSV, bzip2/xz/tar/tar.gz twins of a CSV, gzip and zip bombs, path-traversing, absolute,
symlink and hardlink members, and archives inside archives. Each opens (or is refused) at the
library's door with and without the sandbox, and through the CLI.
"""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import lzma
import tarfile
import warnings
import zipfile

import pytest

from fsviz import cli
from fsviz.data import inspect_table, load_dataset
from fsviz.data.budget import MemoryBudgetError
from fsviz.data.formats.archives import archive_members, strip_compression_suffix, unwrap
from fsviz.data.plan import ImportPlan
from tests.user_files import geo_series_matrix

CSV = b"id,a,b,label\ns1,1,2,x\ns2,3,4,y\ns3,5,7,x\ns4,6,1,y\n"


def named(data: bytes, name: str) -> io.BytesIO:
    buf = io.BytesIO(data)
    buf.name = name
    return buf


def load(data: bytes, name: str, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_dataset(named(data, name), **kw)


def zipped(members: dict[str, bytes], *, links: tuple = ()) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, content in members.items():
            z.writestr(name, content)
        for name, target in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o120777 << 16  # a symbolic link, as Info-ZIP stores one
            z.writestr(info, target)
    return buf.getvalue()


def tarred(members: dict[str, bytes], *, mode: str = "w", extra: tuple = ()) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as t:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            t.addfile(info, io.BytesIO(content))
        for info in extra:
            t.addfile(info)
    return buf.getvalue()


@pytest.mark.parametrize("sandbox", [False, True])
def test_a_gzipped_geo_series_matrix_loads_exactly_as_its_uncompressed_twin(sandbox):
    raw = geo_series_matrix()
    plain = load(raw, "GSE00000_series_matrix.txt", sandbox=sandbox)
    ds = load(gzip.compress(raw), "GSE00000_series_matrix.txt.gz", sandbox=sandbox)
    assert ds.fingerprint == plain.fingerprint and ds.shape == (24, 300)
    assert ds.name == plain.name == "GSE00000_series_matrix"
    assert list(ds.sample_names) == list(plain.sample_names)
    assert ds.meta["label_column"] == plain.meta["label_column"] == "disease state"
    assert ds.meta["plan"]["compression"] == "gzip" and "member" not in ds.meta["plan"]
    assert "decompressed from gzip" in ds.meta["notes"]
    info = inspect_table(named(gzip.compress(raw), "GSE00000_series_matrix.txt.gz"), sandbox=sandbox)
    assert info.fmt == "geo" and info.plan.compression == "gzip"
    again = load_dataset(named(gzip.compress(raw), "x.gz"), plan=ds.meta["plan"] | {"label": "disease state"})
    assert again.fingerprint == ds.fingerprint


def test_a_kaggle_zip_of_one_csv_opens_it_and_the_plan_names_the_member():
    data = zipped({"train.csv": CSV, "__MACOSX/._train.csv": b"\x00\x05", "README.md": b"# about"})
    ds = load(data, "titanic.zip", sandbox=True)
    assert ds.shape == (4, 2) and list(ds.sample_names) == ["s1", "s2", "s3", "s4"]
    assert ds.meta["plan"]["compression"] == "zip" and ds.meta["plan"]["member"] == "train.csv"
    assert ds.fingerprint == load(CSV, "train.csv").fingerprint


@pytest.mark.parametrize(
    ("name", "wrap", "kind"),
    [
        ("t.csv.bz2", bz2.compress, "bz2"),
        ("t.csv.xz", lzma.compress, "xz"),
        ("t.tar", lambda b: tarred({"d/t.csv": b}), "tar"),
        ("t.tar.gz", lambda b: gzip.compress(tarred({"d/t.csv": b})), "tar.gz"),
        ("t.tgz", lambda b: tarred({"t.csv": b}, mode="w:bz2"), "tar.bz2"),  # the name says gz: content wins
        ("t.bin", gzip.compress, "gzip"),
    ],
)
def test_every_wrapper_opens_by_its_content(name, wrap, kind):
    ds = load(wrap(CSV), name)
    assert ds.fingerprint == load(CSV, "t.csv").fingerprint
    assert ds.meta["plan"]["compression"] == kind


def test_several_data_files_name_them_and_member_chooses():
    data = zipped({"train.csv": CSV, "test.csv": CSV.replace(b"s1", b"t1")})
    with pytest.raises(ValueError, match=r"holds 2 data files: 'train.csv', 'test.csv'.*member='train.csv'"):
        load(data, "k.zip")
    ds = load(data, "k.zip", member="test.csv")
    assert ds.sample_names[0] == "t1" and ds.meta["plan"]["member"] == "test.csv"
    assert archive_members(data) == ["train.csv", "test.csv"]
    with pytest.raises(ValueError, match=r"no member 'nope.csv'; its members are 'train.csv', 'test.csv'"):
        load(data, "k.zip", member="nope.csv")


def test_compression_none_reads_the_bytes_as_they_are_and_a_wrong_kind_is_named():
    with pytest.raises(ValueError, match=r"its bytes are a gzip-compressed file"):
        load(gzip.compress(CSV), "t.csv", compression="none")
    with pytest.raises(ValueError, match=r"compression='zip' was asked, but 't.csv.gz' is gzip"):
        load(gzip.compress(CSV), "t.csv.gz", compression="zip")
    with pytest.raises(ValueError, match=r"member='x' was asked, but 't.csv' is not compressed"):
        load(CSV, "t.csv", member="x")


@functools.cache
def bombs() -> dict[str, bytes]:
    zeros = b"0," * (1 << 20)  # 2 MiB of text that compresses about 1000:1
    gz = gzip.compress(zeros, compresslevel=6)
    return {
        "gzip": gz,
        "lying": gz + gzip.compress(b""),  # a second, empty member: the trailer declares 0 bytes
        "zip": zipped({"bomb.csv": zeros}),
        "bz2": bz2.compress(zeros, compresslevel=1),
    }


@pytest.mark.parametrize("sandbox", [False, True])
def test_bombs_are_refused_from_the_declared_and_the_streamed_size_and_the_next_read_works(sandbox):
    b = bombs()
    assert len(b["gzip"]) < 16 << 10
    with pytest.raises(MemoryBudgetError, match=r"declares 2.0 MiB, over 512.0 KiB the memory budget"):
        load(b["gzip"], "bomb.csv.gz", memory_budget="512K", sandbox=sandbox)
    with pytest.raises(
        MemoryBudgetError, match=r"decompresses to more than over 512.0 KiB the memory budget"
    ):
        load(b["lying"], "bomb.csv.gz", memory_budget="512K", sandbox=sandbox)
    with pytest.raises(MemoryBudgetError, match=r"zip member\(s\) bomb.csv declares 2.0 MiB"):
        load(b["zip"], "bomb.zip", memory_budget="512K", sandbox=sandbox)
    with pytest.raises(MemoryBudgetError, match=r"decompresses to more"):
        load(b["bz2"], "bomb.csv.bz2", memory_budget="512K", sandbox=sandbox)
    assert load(gzip.compress(CSV), "fine.csv.gz", memory_budget="512K", sandbox=sandbox).shape == (4, 2)


def _link(name: str, target: str, kind: bytes) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


@pytest.mark.parametrize(
    ("data", "name", "message"),
    [
        (zipped({"../evil.csv": CSV}), "t.zip", r"'../evil.csv' leaves the archive's folder"),
        (zipped({"/etc/evil.csv": CSV}), "t.zip", r"'/etc/evil.csv' is an absolute path"),
        (zipped({"C:\\evil.csv": CSV}), "t.zip", r"is an absolute path"),
        (tarred({"a/../../evil.csv": CSV}), "t.tar", r"leaves the archive's folder"),
        (gzip.compress(tarred({"/abs.csv": CSV})), "t.tar.gz", r"'/abs.csv' is an absolute path"),
        (
            zipped({"t.csv": CSV}, links=(("link.csv", "/etc/passwd"),)),
            "t.zip",
            r"'link.csv' is a symbolic link",
        ),
        (
            tarred({"t.csv": CSV}, extra=(_link("l.csv", "/etc/passwd", tarfile.SYMTYPE),)),
            "t.tar",
            "symbolic link",
        ),
        (tarred({"t.csv": CSV}, extra=(_link("h.csv", "t.csv", tarfile.LNKTYPE),)), "t.tar", "hard link"),
        (
            tarred({"t.csv": CSV}, extra=(_link("f", "", tarfile.FIFOTYPE),)),
            "t.tar",
            "device or special file",
        ),
        (zipped({"inner.csv.gz": gzip.compress(CSV)}), "t.zip", r"is itself gzip-compressed"),
        (zipped({"inner.zip": zipped({"t.csv": CSV})}), "t.zip", r"is itself a zip archive"),
        (gzip.compress(gzip.compress(CSV)), "t.csv.gz.gz", r"is itself gzip-compressed"),
        (gzip.compress(zipped({"t.csv": CSV})), "t.zip.gz", r"is itself a zip archive"),
        (gzip.compress(CSV)[:-12], "cut.csv.gz", r"cut short \(an incomplete download\?\)"),
        (tarred({"README": b"x", "notes.md": b"y"}), "t.tar", r"holds no data file"),
    ],
    ids=[
        "zip-traversal",
        "zip-absolute",
        "zip-drive",
        "tar-traversal",
        "targz-absolute",
        "zip-symlink",
        "tar-symlink",
        "tar-hardlink",
        "tar-fifo",
        "zip-of-gz",
        "zip-of-zip",
        "gz-of-gz",
        "gz-of-zip",
        "truncated",
        "no-data",
    ],
)
@pytest.mark.parametrize("sandbox", [False, True])
def test_hostile_archives_are_refused_whole_with_the_reason(data, name, message, sandbox):
    with pytest.raises(ValueError, match=message):
        load(data, name, sandbox=sandbox)


def test_the_preview_refuses_what_the_loader_refuses_and_the_names_strip():
    with pytest.raises(ValueError, match="leaves the archive's folder"):
        inspect_table(named(zipped({"../x.csv": CSV}), "t.zip"), sandbox=True)
    assert strip_compression_suffix("GSE1_series_matrix.txt.gz") == "GSE1_series_matrix.txt"
    assert strip_compression_suffix("x.tgz") == "x.tar" and strip_compression_suffix("x.zip") == "x.zip"
    assert unwrap(CSV, "t.csv")["compression"] == "none"
    assert inspect_table(named(gzip.compress(CSV), "t.csv.gz"), plan=ImportPlan()).plan.compression == "gzip"


def test_the_cli_opens_compressed_files_and_names_the_members(tmp_path, capsys):
    (tmp_path / "t.csv.gz").write_bytes(gzip.compress(CSV))
    assert cli.main(["info", str(tmp_path / "t.csv.gz"), "--json", "-q"]) == 0
    assert '"n_samples": 4' in capsys.readouterr().out
    two = tmp_path / "k.zip"
    two.write_bytes(zipped({"train.csv": CSV, "test.csv": CSV}))
    assert cli.main(["info", str(two), "-q"]) != 0
    assert "member=" in capsys.readouterr().err
    assert cli.main(["info", str(two), "--member", "test.csv", "--json", "-q"]) == 0
    bad = tmp_path / "evil.zip"
    bad.write_bytes(zipped({"../evil.csv": CSV}))
    assert cli.main(["info", str(bad), "-q"]) != 0
    assert "leaves the archive's folder" in capsys.readouterr().err


def test_compressed_sample_annotations_open_too():
    data = b"sample,a,b\ns1,1,2\ns2,3,4\ns3,5,7\ns4,6,1\n"
    pheno = b"sample,group\ns1,x\ns2,y\ns3,x\ns4,y\n"
    ds = load(data, "d.csv", sample_annotations=named(gzip.compress(pheno), "pheno.csv.gz"), label="group")
    assert list(ds.class_names) == ["x", "y"] and ds.n_samples == 4
