"""wheel_writer writes valid, reproducible wheels; build.py names them per PEP 427."""

import base64
import hashlib
import os
import tempfile
import zipfile

import build
import pytest
import wheel_writer


def _write(tmp, files, **kw):
    paths = {}
    for arcname, data in files.items():
        p = os.path.join(tmp, arcname.replace("/", "_"))
        with open(p, "wb") as f:
            f.write(data)
        paths[arcname] = p
    out = os.path.join(tmp, "out.whl")
    wheel_writer.write_wheel(
        out, kw.pop("name", "demo-pkg"), kw.pop("version", "1.2.3"), kw.pop("tag", "py3-none-any"), paths, **kw
    )
    return out


def test_record_metadata_and_name():
    with tempfile.TemporaryDirectory() as tmp:
        out = _write(tmp, {"demo/__init__.py": b"x = 1\n", "demo/data.bin": b"\0\1"},
                     summary="A demo", requires=["oneflow>=0.1,<0.2"], requires_python="==3.11.*")
        zf = zipfile.ZipFile(out)
        assert zf.testzip() is None
        meta = zf.read("demo_pkg-1.2.3.dist-info/METADATA").decode()
        assert "Name: demo-pkg" in meta and "Version: 1.2.3" in meta
        assert "Requires-Dist: oneflow>=0.1,<0.2" in meta and "Requires-Python: ==3.11.*" in meta
        record = zf.read("demo_pkg-1.2.3.dist-info/RECORD").decode().splitlines()
        for line in record:
            name, digest, size = line.rsplit(",", 2)
            if name.endswith("RECORD"):
                assert digest == "" and size == ""
                continue
            data = zf.read(name)
            want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert digest == "sha256=" + want and int(size) == len(data)
        assert build.wheel_filename(out) == "demo_pkg-1.2.3-py3-none-any.whl"


def test_reproducible():
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        files = {"demo/__init__.py": b"x = 1\n"}
        with open(_write(a, files), "rb") as fa, open(_write(b, files), "rb") as fb:
            assert fa.read() == fb.read()


def test_bad_version_is_rejected():
    with tempfile.TemporaryDirectory() as tmp, pytest.raises(ValueError, match="VERSION"):
        _write(tmp, {"demo/__init__.py": b""}, version="one")


def test_build_copies_wheels_under_their_names():
    with tempfile.TemporaryDirectory() as tmp:
        src = _write(tmp, {"demo/__init__.py": b""}, tag="cp311-cp311-linux_x86_64")
        out_dir = os.path.join(tmp, "dist")
        assert build.main(["--output_dir", out_dir, src]) == 0
        assert os.listdir(out_dir) == ["demo_pkg-1.2.3-cp311-cp311-linux_x86_64.whl"]
