"""The instruction-set rule of the benchmark header matches KernelIsa() in ops/cpu/isa.h."""

import machine

AVX512 = {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx2", "fma", "f16c"}
AVX2 = {"avx2", "fma", "f16c"}


def test_widest_set_of_the_cpu():
    assert machine.kernel_isa(AVX512, "") == "avx512"
    assert machine.kernel_isa(AVX2, "") == "avx2"
    assert machine.kernel_isa({"sse2"}, "") == "baseline"


def test_the_variable_caps_and_never_widens():
    assert machine.kernel_isa(AVX512, "avx2") == "avx2"
    assert machine.kernel_isa(AVX512, "baseline") == "baseline"
    assert machine.kernel_isa(AVX2, "avx512") == "avx2"
    assert machine.kernel_isa({"sse2"}, "avx2") == "baseline"


def test_describe_names_the_cpu_and_the_pin(monkeypatch):
    monkeypatch.setenv("ONEFLOW_VEC_ISA", "baseline")
    line = machine.describe()
    assert line.endswith("kernels baseline (ONEFLOW_VEC_ISA=baseline)")
    assert line.startswith(machine.cpu_model())
