// Tensor ops beyond elementwise math: contractions (einsum, tensordot), cross
// products, diagonals (diag, diag_embed, diagonal, trace), index updates
// (index_add/copy/fill, masked_scatter, take, take_along_dim), nan_to_num,
// as_strided, and grids and differences (meshgrid, cartesian_prod, diff).
// Kernels: ops/cpu/tensor_ops_kernels.cc.
//
// Most of them are composites over the view, reduction and matrix-product ops,
// so their gradients follow from those. einsum contracts its operands pairwise
// with bmm, in a greedy order that keeps intermediates small.

#include <algorithm>
#include <limits>

#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

// The op's name without an in-place '_' ("index_add_" -> "index_add").
std::string BaseName(const OpCall& call) {
  std::string n = call.name();
  if (!n.empty() && n.back() == '_') n.pop_back();
  return n;
}

// PyTorch's ScalarType names in messages ("Float", "Long").

bool IsIndexDType(DType d) { return d == DType::kInt64 || d == DType::kInt32; }

TensorImplPtr SumDims(const TensorImplPtr& t, const DimVector& dims, bool keepdim) {
  return Call("sum.dim", {t, dims, keepdim});
}
TensorImplPtr Permuted(const TensorImplPtr& t, const DimVector& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return Call("permute", {t, perm});
  }
  return t;
}
TensorImplPtr Reshaped(const TensorImplPtr& t, const DimVector& shape) {
  return t->shape() == shape ? t : Call("reshape", {t, shape});
}
int64_t Prod(const DimVector& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// ---- einsum ------------------------------------------------------------------

// Labels: 'A'-'Z' are 0-25 and 'a'-'z' 26-51 (so an implicit output lists
// upper case first, as in PyTorch); the broadcast ellipsis dims are 52 + k.
constexpr int kLetters = 52;

int LabelOf(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  return -1;
}
char LabelChar(int l) { return static_cast<char>(l < 26 ? 'A' + l : 'a' + (l - 26)); }

// One term of the equation: its letters and where its ellipsis sits (-1: none).
struct Term {
  std::vector<int> letters;
  int ellipsis_at = -1;  // index into `letters` before which the ellipsis goes
};

// Parses `text` (which starts at `offset` in the equation, for messages).
Term ParseTerm(const std::string& text, size_t offset, const std::string& who) {
  Term t;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ') continue;
    if (c == '.') {
      OF_CHECK(t.ellipsis_at < 0, RuntimeError, "einsum(): found '.' for ", who,
               " for which an ellipsis was already found");
      OF_CHECK(i + 2 < text.size() && text[i + 1] == '.' && text[i + 2] == '.', RuntimeError,
               "einsum(): found '.' for ", who, " that is not part of any ellipsis");
      t.ellipsis_at = static_cast<int>(t.letters.size());
      i += 2;
      continue;
    }
    int l = LabelOf(c);
    OF_CHECK(l >= 0, RuntimeError, "einsum(): invalid subscript given at index ", offset + i,
             " in the equation string, subscripts must be in [a-zA-Z]");
    t.letters.push_back(l);
  }
  return t;
}

struct Operand {
  TensorImplPtr t;
  std::vector<int> labels;  // one per dim
};

bool Contains(const std::vector<int>& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Sums `op` over its labels that no later step needs.
void SumUnneeded(Operand& op, const std::vector<int>& needed) {
  DimVector dims;
  std::vector<int> kept;
  for (size_t d = 0; d < op.labels.size(); ++d) {
    if (Contains(needed, op.labels[d])) {
      kept.push_back(op.labels[d]);
    } else {
      dims.push_back(static_cast<int64_t>(d));
    }
  }
  if (dims.empty()) return;
  op.t = SumDims(op.t, dims, false);
  op.labels = kept;
}

int64_t SizeOf(const Operand& op, int label) {
  for (size_t d = 0; d < op.labels.size(); ++d) {
    if (op.labels[d] == label) return op.t->shape()[d];
  }
  return 1;
}

// Contracts a and b over their shared labels that `keep` does not hold, with
// one bmm: a as (batch, m, k), b as (batch, k, n).
Operand Contract(Operand a, Operand b, const std::vector<int>& keep) {
  std::vector<int> a_only_needed = keep, b_only_needed = keep;
  for (int l : b.labels) a_only_needed.push_back(l);
  for (int l : a.labels) b_only_needed.push_back(l);
  SumUnneeded(a, a_only_needed);
  SumUnneeded(b, b_only_needed);
  std::vector<int> batch, contracted, m, n;
  for (int l : a.labels) {
    if (Contains(b.labels, l)) {
      (Contains(keep, l) ? batch : contracted).push_back(l);
    } else {
      m.push_back(l);
    }
  }
  for (int l : b.labels) {
    if (!Contains(a.labels, l)) n.push_back(l);
  }
  // Size-1 dims broadcast: a contracted one is summed out of the other side;
  // a batch one is expanded.
  auto dim_of = [](const Operand& op, int l) {
    return static_cast<int64_t>(std::find(op.labels.begin(), op.labels.end(), l) -
                                op.labels.begin());
  };
  for (int l : contracted) {
    int64_t sa = SizeOf(a, l), sb = SizeOf(b, l);
    if (sa == sb) continue;
    Operand& big = sa == 1 ? b : a;
    big.t = SumDims(big.t, {dim_of(big, l)}, true);
  }
  for (int l : batch) {
    int64_t sa = SizeOf(a, l), sb = SizeOf(b, l);
    if (sa == sb) continue;
    Operand& small = sa == 1 ? a : b;
    DimVector shape = small.t->shape();
    shape[dim_of(small, l)] = std::max(sa, sb);
    small.t = Call("expand", {small.t, shape});
  }
  DimVector pa, pb, bsz, msz, nsz;
  int64_t K = 1;
  for (int l : batch) {
    pa.push_back(dim_of(a, l));
    bsz.push_back(SizeOf(a, l));
  }
  for (int l : m) {
    pa.push_back(dim_of(a, l));
    msz.push_back(SizeOf(a, l));
  }
  for (int l : batch) pb.push_back(dim_of(b, l));
  for (int l : contracted) {
    pa.push_back(dim_of(a, l));
    pb.push_back(dim_of(b, l));
    K *= SizeOf(a, l);
  }
  for (int l : n) {
    pb.push_back(dim_of(b, l));
    nsz.push_back(SizeOf(b, l));
  }
  TensorImplPtr ta = Reshaped(Permuted(a.t, pa), {Prod(bsz), Prod(msz), K});
  TensorImplPtr tb = Reshaped(Permuted(b.t, pb), {Prod(bsz), K, Prod(nsz)});
  TensorImplPtr r = Call("bmm", {ta, tb});
  DimVector shape = bsz;
  shape.insert(shape.end(), msz.begin(), msz.end());
  shape.insert(shape.end(), nsz.begin(), nsz.end());
  Operand out;
  out.t = Reshaped(r, shape);
  out.labels = batch;
  out.labels.insert(out.labels.end(), m.begin(), m.end());
  out.labels.insert(out.labels.end(), n.begin(), n.end());
  return out;
}

void Einsum(OpCall& call) {
  const std::string& eq = call.args[0].str();
  const TensorList& tensors = call.args[1].tensors();
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  // The input terms.
  std::vector<Term> terms;
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    std::string text =
        lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    OF_CHECK(terms.size() < tensors.size(), RuntimeError,
             "einsum(): fewer operands were provided than specified in the equation (", eq,
             " with ", tensors.size(), " operands)");
    terms.push_back(ParseTerm(text, start, "operand " + std::to_string(terms.size())));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  OF_CHECK(terms.size() == tensors.size(), RuntimeError,
           "einsum(): more operands were provided than specified in the equation (", eq, " with ",
           tensors.size(), " operands)");
  // Dims under each ellipsis, and the broadcast ellipsis rank.
  int64_t ell = 0;
  std::vector<int64_t> ell_dims(terms.size(), 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    const int64_t nl = static_cast<int64_t>(terms[i].letters.size());
    const int64_t nd = tensors[i]->ndim();
    if (terms[i].ellipsis_at >= 0) {
      OF_CHECK(nd >= nl, RuntimeError, "einsum(): the number of subscripts in the equation (", nl,
               ") is more than the number of dimensions (", nd, ") for operand ", i);
      ell_dims[i] = nd - nl;
      ell = std::max(ell, ell_dims[i]);
    } else {
      OF_CHECK(nd == nl, RuntimeError, "einsum(): the number of subscripts in the equation (", nl,
               ") does not match the number of dimensions (", nd, ") for operand ", i,
               " and no ellipsis was given");
    }
  }
  // Label counts over the inputs, and the output labels.
  std::vector<int> count(kLetters, 0);
  for (const Term& t : terms) {
    for (int l : t.letters) ++count[l];
  }
  std::vector<int> out_labels;
  if (arrow != std::string::npos) {
    Term out = ParseTerm(eq.substr(arrow + 2), arrow + 2, "output");
    for (size_t k = 0; k <= out.letters.size(); ++k) {
      if (static_cast<int>(k) == out.ellipsis_at) {
        for (int64_t e = 0; e < ell; ++e) out_labels.push_back(kLetters + static_cast<int>(e));
      }
      if (k == out.letters.size()) break;
      int l = out.letters[k];
      OF_CHECK(count[l] > 0, RuntimeError, "einsum(): output subscript ", LabelChar(l),
               " does not appear in the equation for any input operand");
      OF_CHECK(!Contains(out_labels, l), RuntimeError, "einsum(): output subscript ", LabelChar(l),
               " appears more than once in the output");
      out_labels.push_back(l);
    }
  } else {
    for (int64_t e = 0; e < ell; ++e) out_labels.push_back(kLetters + static_cast<int>(e));
    for (int l = 0; l < kLetters; ++l) {
      if (count[l] == 1) out_labels.push_back(l);
    }
  }
  // Each operand with one label per dim, its repeated labels turned into diagonals.
  std::vector<Operand> ops(terms.size());
  std::vector<int64_t> size(kLetters + ell, -1);
  std::vector<int> size_from(kLetters + ell, -1);
  for (size_t i = 0; i < terms.size(); ++i) {
    Operand& op = ops[i];
    op.t = tensors[i];
    const Term& t = terms[i];
    for (size_t k = 0; k <= t.letters.size(); ++k) {
      if (static_cast<int>(k) == t.ellipsis_at) {
        for (int64_t e = 0; e < ell_dims[i]; ++e) {
          op.labels.push_back(kLetters + static_cast<int>(ell - ell_dims[i] + e));
        }
      }
      if (k < t.letters.size()) op.labels.push_back(t.letters[k]);
    }
    for (size_t p = 0; p < op.labels.size(); ++p) {
      for (size_t q = p + 1; q < op.labels.size(); ++q) {
        if (op.labels[p] != op.labels[q]) continue;
        const int64_t sp = op.t->shape()[p], sq = op.t->shape()[q];
        OF_CHECK(sp == sq, RuntimeError, "einsum(): subscript ", LabelChar(op.labels[p]),
                 " is repeated for operand ", i, " but the sizes don't match, ", sq, " != ", sp);
        const int l = op.labels[p];
        op.t =
            Call("diagonal", {op.t, int64_t{0}, static_cast<int64_t>(p), static_cast<int64_t>(q)});
        op.labels.erase(op.labels.begin() + q);
        op.labels.erase(op.labels.begin() + p);
        op.labels.push_back(l);
        p = static_cast<size_t>(-1);  // rescan
        break;
      }
    }
    for (size_t d = 0; d < op.labels.size(); ++d) {
      const int l = op.labels[d];
      const int64_t s = op.t->shape()[d];
      if (size[l] < 0 || size[l] == 1) {
        size[l] = s;
        size_from[l] = static_cast<int>(i);
        continue;
      }
      if (s == 1 || s == size[l]) continue;
      if (l >= kLetters) {
        OF_THROW(RuntimeError,
                 "einsum(): operands do not broadcast with remapped shapes (original->remapped): "
                 "ellipsis dim of size ",
                 s, " in operand ", i, " vs size ", size[l], " in operand ", size_from[l]);
      }
      OF_THROW(RuntimeError, "einsum(): subscript ", LabelChar(l), " has size ", s, " for operand ",
               i, " which does not broadcast with previously seen size ", size[l]);
    }
  }
  // Labels needed by the output or by operands other than `skip_a`/`skip_b`.
  auto needed = [&](size_t skip_a, size_t skip_b) {
    std::vector<int> n = out_labels;
    for (size_t j = 0; j < ops.size(); ++j) {
      if (j == skip_a || j == skip_b) continue;
      n.insert(n.end(), ops[j].labels.begin(), ops[j].labels.end());
    }
    return n;
  };
  for (size_t i = 0; i < ops.size(); ++i) SumUnneeded(ops[i], needed(i, i));
  // Pairwise contraction, each time the pair with the smallest result.
  while (ops.size() > 1) {
    size_t best_i = 0, best_j = 1;
    double best = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < ops.size(); ++i) {
      for (size_t j = i + 1; j < ops.size(); ++j) {
        std::vector<int> keep = needed(i, j);
        double s = 1;
        std::vector<int> seen;
        for (const Operand* op : {&ops[i], &ops[j]}) {
          for (size_t d = 0; d < op->labels.size(); ++d) {
            int l = op->labels[d];
            if (!Contains(keep, l) || Contains(seen, l)) continue;
            seen.push_back(l);
            s *= static_cast<double>(std::max(SizeOf(ops[i], l), SizeOf(ops[j], l)));
          }
        }
        if (s < best) {
          best = s;
          best_i = i;
          best_j = j;
        }
      }
    }
    Operand r = Contract(ops[best_i], ops[best_j], needed(best_i, best_j));
    ops.erase(ops.begin() + best_j);
    ops.erase(ops.begin() + best_i);
    ops.push_back(std::move(r));
  }
  Operand& last = ops[0];
  SumUnneeded(last, out_labels);
  DimVector perm;
  for (int l : out_labels) {
    auto it = std::find(last.labels.begin(), last.labels.end(), l);
    perm.push_back(static_cast<int64_t>(it - last.labels.begin()));
  }
  call.outputs = {Permuted(last.t, perm)};
}

OF_OP("einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor").Composite(Einsum)
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone, amp::kLower);

// ---- tensordot -----------------------------------------------------------------

void Tensordot(OpCall& call) {
  TensorImplPtr a = call.tensor(0), b = call.tensor(1);
  const DimVector &da = call.args[2].int_list(), &db = call.args[3].int_list();
  OF_CHECK(da.size() == db.size(), RuntimeError,
           "tensordot(): both dimension lists should have same length (got ", da.size(), " and ",
           db.size(), ")");
  OF_CHECK(a->dtype() == b->dtype(), RuntimeError,
           "tensordot(): both inputs should have same dtype, got ", LegacyTypeName(a->dtype()),
           " and ", LegacyTypeName(b->dtype()));
  std::vector<bool> ca(a->ndim(), false), cb(b->ndim(), false);
  DimVector pa_c, pb_c;
  for (size_t i = 0; i < da.size(); ++i) {
    int64_t x = WrapDim(da[i], a->ndim()), y = WrapDim(db[i], b->ndim());
    OF_CHECK(!ca[x] && !cb[y], RuntimeError, "tensordot(): dim ", ca[x] ? x : y,
             " appears multiple times in the list of dims");
    int64_t sx = a->shape()[x], sy = b->shape()[y];
    // A size-1 dim broadcasts against the other: sum the other over it.
    if (sx != sy) {
      OF_CHECK(sx == 1 || sy == 1, RuntimeError,
               "tensordot(): contracted dimensions need to match, but first has size ", sx,
               " in dim ", da[i], " and second has size ", sy, " in dim ", db[i], " (shapes ",
               ShapeToString(a->shape()), " and ", ShapeToString(b->shape()), ")");
      if (sx == 1) {
        b = SumDims(b, {y}, true);
      } else {
        a = SumDims(a, {x}, true);
      }
    }
    ca[x] = cb[y] = true;
    pa_c.push_back(x);
    pb_c.push_back(y);
  }
  DimVector pa, pb, out_shape;
  int64_t M = 1, N = 1, K = 1;
  for (int64_t d = 0; d < a->ndim(); ++d) {
    if (ca[d]) continue;
    pa.push_back(d);
    out_shape.push_back(a->shape()[d]);
    M *= a->shape()[d];
  }
  for (int64_t d : pa_c) {
    pa.push_back(d);
    K *= a->shape()[d];
  }
  pb = pb_c;
  for (int64_t d = 0; d < b->ndim(); ++d) {
    if (cb[d]) continue;
    pb.push_back(d);
    out_shape.push_back(b->shape()[d]);
    N *= b->shape()[d];
  }
  TensorImplPtr ma = Reshaped(Permuted(a, pa), {M, K});
  TensorImplPtr mb = Reshaped(Permuted(b, pb), {K, N});
  call.outputs = {Reshaped(Call("mm", {ma, mb}), out_shape)};
}
OF_OP("tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor")
    .Composite(Tensordot)
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone, amp::kPromote);

// ---- cross -----------------------------------------------------------------------

// a x b along a dim of size 3 (the first such dim of the broadcast shape when
// dim is None, PyTorch's deprecated default).
void Cross(OpCall& call) {
  const TensorImplPtr &a = call.tensor(0), &b = call.tensor(1);
  const char* op = "linalg.cross";
  OF_CHECK(a->ndim() == b->ndim(), RuntimeError, op,
           ": inputs must have the same number of dimensions (got shapes ",
           ShapeToString(a->shape()), " and ", ShapeToString(b->shape()), ")");
  OF_CHECK(a->dtype() == b->dtype(), RuntimeError, op,
           ": expected both inputs to have the same dtype, but got ", LegacyTypeName(a->dtype()),
           " and ", LegacyTypeName(b->dtype()));
  DimVector shape = BroadcastShapes(a->shape(), b->shape(), op);
  int64_t dim;
  if (call.args[2].is_none()) {
    auto it = std::find(shape.begin(), shape.end(), 3);
    OF_CHECK(it != shape.end(), RuntimeError, op, ": no dimension of size 3 in input (shape ",
             ShapeToString(shape), ")");
    dim = it - shape.begin();
  } else {
    dim = WrapDim(call.args[2].to_int(), static_cast<int64_t>(shape.size()));
    OF_CHECK(a->shape()[dim] == 3 && b->shape()[dim] == 3, RuntimeError, op, ": inputs dimension ",
             call.args[2].to_int(), " must have length 3. Got ", a->shape()[dim], " and ",
             b->shape()[dim], " (shapes ", ShapeToString(a->shape()), " and ",
             ShapeToString(b->shape()), ")");
  }
  auto at = [dim](const TensorImplPtr& t, int64_t i) { return Call("select", {t, dim, i}); };
  TensorImplPtr c0 = Sub(Mul(at(a, 1), at(b, 2)), Mul(at(a, 2), at(b, 1)));
  TensorImplPtr c1 = Sub(Mul(at(a, 2), at(b, 0)), Mul(at(a, 0), at(b, 2)));
  TensorImplPtr c2 = Sub(Mul(at(a, 0), at(b, 1)), Mul(at(a, 1), at(b, 0)));
  call.outputs = {Call("stack", {TensorList{c0, c1, c2}, dim})};
}
OF_OP("cross(Tensor self, Tensor other, int? dim=None) -> Tensor").Composite(Cross)
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone, amp::kPromote);

// ---- diagonals ------------------------------------------------------------------

void InferView(OpCall& call) { call.compute_dtype = call.tensor(0)->dtype(); }

// The diagonal's view: the two dims removed and one of the diagonal's length
// appended.
OF_OP("diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)")
    .Infer(InferView)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {Call("diagonal_backward",
                   {c.grad(), c.input(0)->shape(), c.int_arg(1), c.int_arg(2), c.int_arg(3)})};
    })
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone);

// Zeros of the input's shape with the gradient on the diagonal.
void InferDiagonalBackward(OpCall& call) {
  call.compute_dtype = call.tensor(0)->dtype();
  call.out_meta = {{call.args[1].int_list(), call.compute_dtype}};
}
OF_OP(
    "diagonal_backward(Tensor grad_output, int[] input_sizes, int offset, int dim1, int dim2) -> "
    "Tensor")
    .Infer(InferDiagonalBackward)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {Call("diagonal", {c.grad(), c.int_arg(2), c.int_arg(3), c.int_arg(4)})};
    })
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone);

// diag_embed: the last dim of self on the diagonal (offset) of the plane
// (dim1, dim2) of a new tensor: diagonal_backward of self.
void DiagEmbed(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  const int64_t offset = call.args[1].to_int();
  const int64_t nd = x->ndim() + 1;
  const int64_t d1 = WrapDim(call.args[2].to_int(), nd), d2 = WrapDim(call.args[3].to_int(), nd);
  OF_CHECK(d1 != d2, RuntimeError, "diag_embed(): diagonal dimensions cannot be identical ",
           call.args[2].to_int(), ", ", call.args[3].to_int());
  OF_CHECK(x->ndim() >= 1, RuntimeError, "diag_embed(): expected a tensor with at least 1 dim");
  const int64_t n = x->shape().back() + std::abs(offset);
  DimVector shape(x->shape().begin(), x->shape().end() - 1);
  const int64_t lo = std::min(d1, d2), hi = std::max(d1, d2);
  shape.insert(shape.begin() + lo, n);
  shape.insert(shape.begin() + hi, n);
  call.outputs = {Call("diagonal_backward", {x, shape, offset, d1, d2})};
}
OF_OP("diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor")
    .Composite(DiagEmbed)
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone);

// diag: a vector on a matrix's diagonal, or a matrix's diagonal as a new vector.
void Diag(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  const int64_t k = call.args[1].to_int();
  OF_CHECK(x->ndim() == 1 || x->ndim() == 2, RuntimeError,
           "diag(): Supports 1D or 2D tensors. Got ", x->ndim(), "D (shape ",
           ShapeToString(x->shape()), ")");
  if (x->ndim() == 1) {
    call.outputs = {Call("diag_embed", {x, k, int64_t{0}, int64_t{1}})};
  } else {
    call.outputs = {Call("clone", {Call("diagonal", {x, k, int64_t{0}, int64_t{1}})})};
  }
}
OF_OP("diag(Tensor self, int diagonal=0) -> Tensor").Composite(Diag)
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone);

void Trace(OpCall& call) {
  const TensorImplPtr& x = call.tensor(0);
  OF_CHECK(x->ndim() == 2, RuntimeError, "trace: expected a matrix, but got tensor with dim ",
           x->ndim(), " (shape ", ShapeToString(x->shape()), ")");
  call.outputs = {Call("sum", {Call("diagonal", {x, int64_t{0}, int64_t{0}, int64_t{1}})})};
}
OF_OP("trace(Tensor self) -> Tensor").Composite(Trace)
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kFp32, amp::kNone);

// ---- index_add / index_copy / index_fill -------------------------------------------

// Shared checks of (self, dim, index[, source]): an int vector index and a
// source of self's dtype and shape except along dim, with one slice per index.
void CheckIndexUpdate(const OpCall& call, bool has_source) {
  const std::string op = BaseName(call) + "_";
  const TensorImplPtr& self = call.tensor(0);
  const TensorImplPtr& index = call.tensor(2);
  const int64_t dim = WrapDim(call.args[1].to_int(), self->ndim());
  OF_CHECK(IsIndexDType(index->dtype()), RuntimeError, op,
           "(): Expected dtype int32/int64 for index but got: ", LegacyTypeName(index->dtype()));
  OF_CHECK(index->ndim() <= 1, IndexError, op,
           "(): Index is supposed to be a vector, but got dim: ", index->ndim(),
           " with type: ", LegacyTypeName(index->dtype()),
           " and size: ", ShapeToString(index->shape()));
  if (!has_source) return;
  const TensorImplPtr& src = call.tensor(3);
  OF_CHECK(src->dtype() == self->dtype(), RuntimeError, op, "(): self (",
           LegacyTypeName(self->dtype()), ") and source (", LegacyTypeName(src->dtype()),
           ") must have the same scalar type");
  const int64_t src_size = src->ndim() == 0 ? 1 : src->shape()[WrapDim(dim, src->ndim())];
  OF_CHECK(index->numel() == src_size, RuntimeError, op, "(): Number of indices (", index->numel(),
           ") should be equal to source.size(dim): (", src_size, "), for dim: ", dim);
  bool same = self->ndim() == src->ndim();
  for (int64_t d = 0; same && d < self->ndim(); ++d) {
    same = d == dim || self->shape()[d] == src->shape()[d];
  }
  OF_CHECK(same, RuntimeError, op,
           "(): source tensor shape must match self tensor shape, excluding the specified "
           "dimension. Got self.shape = ",
           ShapeToString(self->shape()), " source.shape = ", ShapeToString(src->shape()));
}

void InferIndexUpdate(OpCall& call) {
  const bool has_source = BaseName(call) != "index_fill";
  CheckIndexUpdate(call, has_source);
  const TensorImplPtr& self = call.tensor(0);
  if (!has_source && call.args[3].is_tensor()) {
    const TensorImplPtr& v = call.tensor(3);
    OF_CHECK(v->ndim() == 0, RuntimeError,
             "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
             v->ndim(), " dimension(s).");
    if (v->dtype() != self->dtype()) {
      call.args[3] = Value(ToDType(v, self->dtype(), false), call.args[3].is_wrapped_number());
    }
  }
  call.compute_dtype = self->dtype();
  call.out_meta = {{self->shape(), self->dtype()}};
}

// The gradient of a source indexed along dim: the output's gradient selected
// at the index, in the source's shape (a scalar source sees a 1-D slice).
TensorImplPtr SourceGrad(const BackwardCtx& c, const TensorImplPtr& g) {
  const TensorImplPtr src = c.input(3);
  TensorImplPtr r = Call("index_select", {g, c.int_arg(1), c.input(2)});
  return Reshaped(r, src->shape());
}

OF_OP_WITH_INPLACE(
    "index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor")
    .Infer(InferIndexUpdate)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      TensorImplPtr gs;
      if (c.needs_grad[2]) {
        gs = SourceGrad(c, g);
        const Scalar& alpha = c.scalar(4);
        if (alpha.d != 1.0) {
          gs = Mul(gs, alpha.kind == Scalar::Kind::kFloat ? Num(alpha.d) : Int(alpha.i));
        }
      }
      return {c.needs_grad[0] ? g : nullptr, nullptr, gs};
    })
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone);

OF_OP_WITH_INPLACE("index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor")
    .Infer(InferIndexUpdate)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      TensorImplPtr gself;
      if (c.needs_grad[0]) {
        gself = Call("index_fill.int_Scalar", {g, c.int_arg(1), c.input(2), Scalar::Int(0)});
      }
      return {gself, nullptr, c.needs_grad[2] ? SourceGrad(c, g) : nullptr};
    })
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kPromote);

// index_fill's value gradient sums the filled positions once each (an index
// may repeat): g minus g with those positions zeroed.
TensorList IndexFillGrad(BackwardCtx& c) {
  TensorImplPtr g = c.grad();
  TensorImplPtr zeroed =
      Call("index_fill.int_Scalar", {g, c.int_arg(1), c.input(2), Scalar::Int(0)});
  TensorList out = {c.needs_grad[0] ? zeroed : nullptr, nullptr};
  if (c.needs_grad.size() > 2) {
    out.push_back(c.needs_grad[2] ? Call("sum", {Sub(g, zeroed)}) : nullptr);
  }
  return out;
}
OF_OP_WITH_INPLACE(
    "index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor")
    .Infer(InferIndexUpdate)
    .Backward(IndexFillGrad)
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone);
OF_OP_WITH_INPLACE(
    "index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor")
    .Infer(InferIndexUpdate)
    .Backward(IndexFillGrad)
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone);

// ---- masked_scatter ------------------------------------------------------------------

// self (broadcast with the mask) with source's elements, in order, where the
// mask is true. The in-place form does not broadcast self.
void InferMaskedScatter(OpCall& call) {
  const std::string op = BaseName(call);
  const TensorImplPtr &self = call.tensor(0), &mask = call.tensor(1), &src = call.tensor(2);
  OF_CHECK(mask->dtype() == DType::kBool, RuntimeError,
           "masked_scatter_ only supports boolean masks, but got mask with dtype ",
           LegacyTypeName(mask->dtype()));
  OF_CHECK(src->dtype() == self->dtype(), RuntimeError,
           "masked_scatter: expected self and source to have same dtypes but got ",
           LegacyTypeName(self->dtype()), " and ", LegacyTypeName(src->dtype()));
  DimVector shape = BroadcastShapes(self->shape(), mask->shape(), op.c_str());
  call.compute_dtype = self->dtype();
  call.out_meta = {{shape, self->dtype()}};
}
OF_OP_WITH_INPLACE("masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor")
    .Infer(InferMaskedScatter)
    .Backward([](BackwardCtx& c) -> TensorList {
      TensorImplPtr g = c.grad();
      TensorImplPtr mask = c.input(1);
      TensorImplPtr gself, gsrc;
      if (c.needs_grad[0]) gself = Call("masked_fill.Scalar", {g, mask, Scalar::Int(0)});
      if (c.needs_grad[2]) {
        // The selected gradient fills the source's first elements; the rest get zeros.
        const TensorImplPtr src = c.input(2);
        TensorImplPtr picked = Call("masked_select", {g, mask});
        const int64_t n = picked->numel();
        picked = Call("slice_backward",
                      {picked, DimVector{src->numel()}, int64_t{0}, int64_t{0}, n, int64_t{1}});
        gsrc = Call("reshape", {picked, src->shape()});
      }
      return {gself, nullptr, gsrc};
    })
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone);

// ---- nan_to_num ----------------------------------------------------------------------------

void InferSameAsSelf(OpCall& call) {
  const TensorImplPtr& self = call.tensor(0);
  call.compute_dtype = self->dtype();
  call.out_meta = {{self->shape(), self->dtype()}};
}
OF_OP_WITH_INPLACE(
    "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor")
    .Infer(InferSameAsSelf)
    .Backward([](BackwardCtx& c) -> TensorList {
      return {Mul(c.grad(), Call("isfinite", {c.input(0)}))};
    })
    .Sbp(sbp::Elementwise())
    .Autocast(amp::kNone)
    .Traits(kElementwise);

// ---- take / take_along_dim / narrow_copy ------------------------------------------------

// take: self as 1-D, indexed by `index` (negative positions count from the end).
void Take(OpCall& call) {
  const TensorImplPtr &x = call.tensor(0), &index = call.tensor(1);
  OF_CHECK(index->dtype() == DType::kInt64, RuntimeError,
           "take(): Expected a long tensor for index, but got ", LegacyTypeName(index->dtype()));
  const int64_t n = x->numel();
  TensorImplPtr idx = Contiguous(index);
  const int64_t* p = reinterpret_cast<const int64_t*>(idx->data());
  for (int64_t i = 0; i < idx->numel(); ++i) {
    OF_CHECK(p[i] >= -n && p[i] < n, IndexError, "take(): out of range: tried to access index ",
             p[i], " on a tensor of ", n, " elements.");
  }
  OF_CHECK(n > 0 || idx->numel() == 0, IndexError,
           "take(): cannot take elements from an empty tensor (shape ", ShapeToString(x->shape()),
           ")");
  TensorImplPtr flat = Call("reshape", {x, DimVector{n}});
  call.outputs = {Call("_index", {flat, TensorList{index}, Value(), DimVector{n}})};
}
OF_OP("take(Tensor self, Tensor index) -> Tensor").Composite(Take)
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone);

// take_along_dim: gather after broadcasting self and indices against each
// other in every dim but `dim` (flattened both when dim is None).
void TakeAlongDim(OpCall& call) {
  TensorImplPtr x = call.tensor(0), idx = call.tensor(1);
  OF_CHECK(idx->dtype() == DType::kInt64, RuntimeError,
           "torch.take_along_dim(): dtype of indices should be Long but got ",
           LegacyTypeName(idx->dtype()));
  if (call.args[2].is_none()) {
    x = Call("reshape", {x, DimVector{x->numel()}});
    idx = Call("reshape", {idx, DimVector{idx->numel()}});
    call.outputs = {Call("gather", {x, int64_t{0}, idx})};
    return;
  }
  OF_CHECK(x->ndim() == idx->ndim(), RuntimeError,
           "torch.take_along_dim(): input and indices should have the same number of dimensions, "
           "but got ",
           x->ndim(), " dimensions for input, and ", idx->ndim(), " dimensions for indices");
  const int64_t dim = WrapDim(call.args[2].to_int(), x->ndim());
  if (x->ndim() > 0) {
    DimVector xs = x->shape(), is = idx->shape();
    xs[dim] = idx->shape()[dim];
    DimVector ishape = BroadcastShapes(xs, idx->shape(), "take_along_dim");
    is[dim] = x->shape()[dim];
    DimVector xshape = BroadcastShapes(is, x->shape(), "take_along_dim");
    if (idx->shape() != ishape) idx = Call("expand", {idx, ishape});
    if (x->shape() != xshape) x = Call("expand", {x, xshape});
    // Negative positions count from the end.
    const int64_t size = x->shape()[dim];
    idx = Call("where", {Call("lt", {idx, Int(0)}), Add(idx, Int(size)), idx});
  }
  call.outputs = {Call("gather", {x, dim, idx})};
}
OF_OP("take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor")
    .Composite(TakeAlongDim)
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone);

void NarrowCopy(OpCall& call) {
  call.outputs = {
      Call("clone", {Call("narrow", {call.args[0], call.args[1], call.args[2], call.args[3]})})};
}
OF_OP("narrow_copy(Tensor self, int dim, int start, int length) -> Tensor").Composite(NarrowCopy)
    .Sbp(sbp::Family("along_dim", "linear=1"))
    .Autocast(amp::kNone);

// ---- as_strided -----------------------------------------------------------------------------

// A view of self's storage with the given geometry (storage_offset defaults to
// self's). The gradient is accumulated into a buffer shaped like the storage
// both geometries touch and read back with self's geometry.
OF_OP("as_strided(Tensor(a) self, int[] size, int[] stride, int? storage_offset=None) -> Tensor(a)")
    .Infer(InferView)
    .Backward([](BackwardCtx& c) -> TensorList {
      const TensorImplPtr x = c.input(0);
      const int64_t offset = c.arg(3).is_none() ? x->storage_offset() : c.int_arg(3);
      return {Call("as_strided_backward", {c.grad(), x->shape(), x->stride(), x->storage_offset(),
                                           c.arg(1), c.arg(2), offset})};
    })
    .Sbp(sbp::Unsupported("the result depends on the local memory layout"))
    .Autocast(amp::kNone);
void InferAsStridedBackward(OpCall& call) {
  call.compute_dtype = call.tensor(0)->dtype();
  call.out_meta = {{call.args[1].int_list(), call.compute_dtype}};
}
OF_OP(
    "as_strided_backward(Tensor grad, int[] input_size, int[] input_stride, int input_offset, "
    "int[] size, int[] stride, int storage_offset) -> Tensor")
    .Infer(InferAsStridedBackward)
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone);

// ---- meshgrid / cartesian_prod / diff -----------------------------------------------------

void Meshgrid(OpCall& call) {
  const TensorList& ts = call.args[0].tensors();
  OF_CHECK(!ts.empty(), RuntimeError, "meshgrid expects a non-empty TensorList");
  std::string indexing = call.args[1].is_none() ? "ij" : call.args[1].str();
  OF_CHECK(indexing == "ij" || indexing == "xy", RuntimeError,
           "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", indexing);
  for (size_t i = 0; i < ts.size(); ++i) {
    OF_CHECK(ts[i]->ndim() <= 1, RuntimeError,
             "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: ",
             ShapeToString(ts[i]->shape()), " at position ", i);
    OF_CHECK(ts[i]->dtype() == ts[0]->dtype(), RuntimeError,
             "meshgrid expects all tensors to have the same dtype (got ",
             LegacyTypeName(ts[0]->dtype()), " and ", LegacyTypeName(ts[i]->dtype()), ")");
  }
  const bool xy = indexing == "xy" && ts.size() >= 2;
  // With "xy" the first two inputs swap places in the grid's dims.
  std::vector<size_t> order(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) order[i] = i;
  if (xy) std::swap(order[0], order[1]);
  DimVector shape;
  for (size_t k : order) shape.push_back(ts[k]->numel());
  for (size_t i = 0; i < ts.size(); ++i) {
    size_t pos = std::find(order.begin(), order.end(), i) - order.begin();
    DimVector view(ts.size(), 1);
    view[pos] = ts[i]->numel();
    call.outputs.push_back(Call("expand", {Call("reshape", {ts[i], view}), shape}));
  }
}
OF_OP("meshgrid(Tensor[] tensors, *, str? indexing=None) -> Tensor[]").Composite(Meshgrid)
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone);

void CartesianProd(OpCall& call) {
  const TensorList& ts = call.args[0].tensors();
  for (const auto& t : ts) {
    OF_CHECK(t->ndim() == 1, RuntimeError, "cartesian_prod(): Expect a 1D vector, but got shape ",
             ShapeToString(t->shape()));
  }
  if (ts.size() == 1) {
    call.outputs = {ts[0]};
    return;
  }
  std::vector<Value> grid = CallAll("meshgrid", {ts, std::string("ij")});
  TensorList cols;
  for (const auto& g : grid[0].tensors()) cols.push_back(Call("reshape", {g, DimVector{-1}}));
  call.outputs = {Call("stack", {cols, int64_t{1}})};
}
OF_OP("cartesian_prod(Tensor[] tensors) -> Tensor").Composite(CartesianProd)
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone);

// diff: n-th forward difference along dim (logical xor for bool), after
// prepend/append are concatenated.
void Diff(OpCall& call) {
  TensorImplPtr x = call.tensor(0);
  const int64_t n = call.args[1].to_int();
  OF_CHECK(x->ndim() >= 1, RuntimeError, "diff expects input to be at least one-dimensional");
  OF_CHECK(n >= 0, RuntimeError, "order must be non-negative but got ", n);
  const int64_t dim = WrapDim(call.args[2].to_int(), x->ndim());
  TensorList parts;
  for (int k : {3, -1, 4}) {
    TensorImplPtr t = x;
    if (k >= 0) t = call.has(k) ? call.tensor(k) : nullptr;
    if (!t) continue;
    OF_CHECK(t->ndim() == x->ndim(), RuntimeError,
             "diff expects prepend or append to be the same dimension as input (got shapes ",
             ShapeToString(t->shape()), " and ", ShapeToString(x->shape()), ")");
    parts.push_back(t);
  }
  if (parts.size() > 1) x = Call("cat", {parts, dim});
  for (int64_t i = 0; i < n; ++i) {
    const int64_t len = x->shape()[dim];
    if (len <= 1) {
      x = Call("narrow", {x, dim, int64_t{0}, int64_t{0}});
      break;
    }
    TensorImplPtr hi = Call("narrow", {x, dim, int64_t{1}, len - 1});
    TensorImplPtr lo = Call("narrow", {x, dim, int64_t{0}, len - 1});
    x = x->dtype() == DType::kBool ? Call("logical_xor", {hi, lo}) : Sub(hi, lo);
  }
  call.outputs = {x};
}
OF_OP("diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor")
    .Composite(Diff)
    .Sbp(sbp::BroadcastOnly("no split rule written yet: runs on whole tensors on every rank"))
    .Autocast(amp::kNone);

}  // namespace
}  // namespace defs
}  // namespace oneflow
