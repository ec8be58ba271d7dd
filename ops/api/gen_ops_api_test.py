"""The generator's reading of declarations and the C++ signatures it writes."""

import gen_ops_api
import schema_scan


def test_reads_literals_macros_and_inplace_twins_from_preprocessed_text():
    text = (
        'static auto& a = ::oneflow::OpRegistry::Declare("neg" "(Tensor self) -> Tensor");\n'
        'auto p = ::oneflow::defs::DeclareWithInplace("add(Tensor self, Tensor other, *, '
        'Scalar alpha=1) -> Tensor");\n'
        "OpRegistry::Declare(StrCat(name, \"(Tensor self) -> Tensor\"));\n"
        'OpRegistry::Declare("pad(Tensor self, str mode=\\"constant\\") -> Tensor");\n'
    )
    assert schema_scan.schemas(text) == [
        "neg(Tensor self) -> Tensor",
        "add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "add_(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
        'pad(Tensor self, str mode="constant") -> Tensor',
    ]


def test_overloads_keywords_defaults_and_returns():
    header, source = gen_ops_api.generate(
        [
            "sum.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)"
            " -> Tensor",
            "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
            "split(Tensor self, int[] sizes, int dim=0) -> Tensor[]",
            "not(Tensor self, Tensor? weight, str default) -> Tensor",
        ]
    )
    assert (
        "TensorImplPtr sum_dim(const TensorArg& self, const std::optional<DimVector>& dim = {}, "
        "const Def<bool>& keepdim = {}, const std::optional<DType>& dtype = {});" in header
    )
    assert "std::array<TensorImplPtr, 2> max_dim(const TensorArg& self, int64_t dim, " in header
    assert "TensorList split(const TensorArg& self, const DimVector& sizes, " in header
    # A C++ keyword as op or argument name; optional arguments before a required one have no default.
    assert (
        "TensorImplPtr not_op(const TensorArg& self, const OptTensorArg& weight, "
        "const std::string& default_);" in header
    )
    assert "inline constexpr ArgRef<bool> keepdim{2};" in header
    assert "inline constexpr ArgRef<::std::optional<DimVector>> dim{1};" in header
    assert 'OpRegistry::Get("max.dim")' in source


def test_two_ops_with_one_cpp_name_are_refused():
    try:
        gen_ops_api.generate(["a.b(Tensor self) -> Tensor", "a_b(Tensor self) -> Tensor"])
    except ValueError as e:
        assert "a_b" in str(e)
    else:
        raise AssertionError("expected ValueError")
