"""Writes one wheel (PEP 427) from a list of `arcname=path` entries.

Invoked by the of_py_wheel rule in tools/rules/defs.bzl; not meant for people.
The archive is reproducible: entries are sorted and carry a fixed timestamp.
"""

import argparse
import base64
import hashlib
import os
import re
import zipfile

_EPOCH = (1980, 1, 1, 0, 0, 0)


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def _metadata(name, version, summary, requires, requires_python):
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if summary:
        lines.append(f"Summary: {summary}")
    if requires_python:
        lines.append(f"Requires-Python: {requires_python}")
    lines += [f"Requires-Dist: {r}" for r in requires]
    return "\n".join(lines) + "\n"


def write_wheel(output, name, version, tag, files, summary="", requires=(), requires_python=None):
    """Writes the wheel `output` holding `files` ({arcname: path}) plus its dist-info."""
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)*([a-z]+[0-9]+)?", version):
        raise ValueError(f"wheel {name}: VERSION must look like 1.2.3, got {version!r}")
    dist_info = f"{re.sub(r'[-.]+', '_', name)}-{version}.dist-info"
    generated = {
        f"{dist_info}/METADATA": _metadata(name, version, summary, requires, requires_python),
        f"{dist_info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: oneflow-monorepo\n"
            f"Root-Is-Purelib: {'true' if tag.endswith('-none-any') else 'false'}\nTag: {tag}\n"
        ),
    }
    record = []
    tmp = output + ".tmp"
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        def add(arcname, data, mode=0o644):
            info = zipfile.ZipInfo(arcname, date_time=_EPOCH)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
            record.append(f"{arcname},{_record_hash(data)},{len(data)}")

        for arcname in sorted(files):
            with open(files[arcname], "rb") as f:
                data = f.read()
            executable = os.access(files[arcname], os.X_OK) and arcname.endswith(".so")
            add(arcname, data, 0o755 if executable else 0o644)
        for arcname, text in generated.items():
            add(arcname, text.encode())
        record.append(f"{dist_info}/RECORD,,")
        info = zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=_EPOCH)
        info.external_attr = 0o100644 << 16
        zf.writestr(info, "\n".join(record) + "\n")
    os.replace(tmp, output)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--output", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--version_file", required=True)
    p.add_argument("--tag", required=True)
    p.add_argument("--filelist", required=True)
    p.add_argument("--summary", default="")
    p.add_argument("--requires", action="append", default=[])
    p.add_argument("--requires_python")
    a = p.parse_args()
    with open(a.version_file) as f:
        version = f.read().strip()
    files = {}
    with open(a.filelist) as f:
        for line in f:
            line = line.strip()
            if line:
                arcname, path = line.split("=", 1)
                files[arcname] = path
    if not files:
        raise SystemExit(f"wheel {a.name}: no files to package")
    write_wheel(a.output, a.name, version, a.tag, files, a.summary, a.requires, a.requires_python)


if __name__ == "__main__":
    main()
