"""The oneflow wheel installs into a brand-new virtualenv and works there."""

import os
import zipfile

from install_check import ONEFLOW_WHEEL, FreshVenv, read_version


def test_wheel_holds_the_package_and_the_extension_but_no_tests():
    names = zipfile.ZipFile(ONEFLOW_WHEEL).namelist()
    assert "oneflow/__init__.py" in names and "oneflow/_C.so" in names and "oneflow/_version.py" in names
    assert not [n for n in names if n.endswith(("_test.py", "BUILD"))]
    # The type stubs generated at build time, and the marker saying the package is typed.
    stubs = {"oneflow/__init__.pyi", "oneflow/_C.pyi", "oneflow/nn/functional/__init__.pyi", "oneflow/py.typed"}
    assert stubs <= set(names)
    assert "oneflow/stubgen.py" not in names
    version = read_version("core/VERSION")
    wheel_meta = zipfile.ZipFile(ONEFLOW_WHEEL).read(f"oneflow-{version}.dist-info/WHEEL").decode()
    assert "Tag: cp3" in wheel_meta and "Root-Is-Purelib: false" in wheel_meta


def test_installed_wheel_imports_and_computes():
    with FreshVenv() as venv:
        venv.install(ONEFLOW_WHEEL)
        r = venv.run(
            "import numpy as np, oneflow as flow\n"
            "a = np.arange(6, dtype=np.float32)\n"
            "t = flow.from_numpy(a).view(2, 3)\n"
            "a[0] = 10\n"
            "print(flow.__version__, flow._C.__file__)\n"
            "print(t.T.contiguous().tolist())\n"
            "print(repr(flow.tensor([1, 2])))\n"
        )
        assert r.returncode == 0, r.stderr
        first, values, rep = r.stdout.splitlines()
        version, so_path = first.split()
        assert version == read_version("core/VERSION")
        assert so_path.startswith(venv.site_packages)
        assert values == "[[10.0, 3.0], [1.0, 4.0], [2.0, 5.0]]"
        assert rep == "tensor([1, 2], dtype=oneflow.int64)"


def test_mismatched_extension_is_a_clear_import_error():
    with FreshVenv() as venv:
        venv.install(ONEFLOW_WHEEL)
        with open(os.path.join(venv.site_packages, "oneflow", "_version.py"), "w") as f:
            f.write('__version__ = "9.9.9"\n')
        r = venv.run("import oneflow")
        assert r.returncode != 0
        assert "ImportError" in r.stderr and "9.9.9" in r.stderr and "oneflow._C is version" in r.stderr
