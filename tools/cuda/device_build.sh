#!/usr/bin/env bash
# Links oneflow's CUDA build on a GPU machine that has CUDA, g++, Python 3 with pybind11 and
# NumPy, but no Bazel: unpacks the bundle of tools/cuda/make_device_bundle.py, compiles the
# Python bindings (core/pybind) against that machine's Python, links _C.so and lays out an
# importable package in $1 (default /tmp/of). Usage: tools/cuda/device_build.sh [dest] [bundle]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dest="${1:-/tmp/of}"
bundle_tar="${2:-$root/.device/bundle.tar.xz}"
work="$dest/build"
mkdir -p "$work" "$dest/pkg"
tar -xJf "$bundle_tar" -C "$work"
b="$work/bundle"
py_inc="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
pb_inc="$(python3 -c 'import pybind11; print(pybind11.get_include())')"
np_inc="$(python3 -c 'import numpy; print(numpy.get_include())')"
cuda="${CUDA_HOME:-/usr/local/cuda}"
flags=(-std=c++17 -O2 -fPIC -fvisibility=hidden -I"$root" -I"$b/gen" -I"$py_inc" -I"$pb_inc" -I"$np_inc")
objs=()
for src in "$root"/core/pybind/*.cc; do
  o="$work/$(basename "${src%.cc}").o"
  g++ "${flags[@]}" -c "$src" -o "$o" &
  objs+=("$o")
done
wait
# OF_EXTRA_LIBS: more library directories (space-separated), e.g. the nvidia wheels' lib dirs.
extra=()
for d in ${OF_EXTRA_LIBS:-}; do extra+=(-L"$d" -Wl,-rpath,"$d"); done
mapfile -t bundled < <(sed "s|^|$b/objs/|" "$b/objs.txt")
g++ -shared -o "$work/_C.so" -Wl,--whole-archive "${objs[@]}" "${bundled[@]}" -Wl,--no-whole-archive \
  -Wl,--exclude-libs,ALL -L"$b/lib" -l:libdnnl.so.2 -l:libOpenCL.so.1 -fopenmp \
  -L"$cuda/lib64" "${extra[@]}" -l:libcudart.so.13 -l:libcublas.so.13 -l:libcublasLt.so.13 -l:libcudnn.so.9 \
  -Wl,-rpath,"$b/lib" -Wl,-rpath,"$cuda/lib64"
rm -rf "$dest/pkg/oneflow"
cp -r "$root/core/oneflow" "$dest/pkg/oneflow"
cp "$work/_C.so" "$b/gen/core/oneflow/_version.py" "$dest/pkg/oneflow/"
echo "device_build: $dest/pkg (PYTHONPATH) ready"
