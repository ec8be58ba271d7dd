// Contractions and products over dimensions: einsum (operands contracted
// pairwise with bmm, in a greedy order that keeps intermediates small),
// tensordot and cross. All are composites over the view, reduction and
// matrix-product ops, so their gradients follow from those.

#include <algorithm>
#include <limits>

#include "ops/defs/common.h"

namespace oneflow {
namespace defs {
namespace {

TensorImplPtr SumDims(const TensorImplPtr& t, const DimVector& dims, bool keepdim) {
  return ops::sum_dim(t, dims, keepdim);
}
TensorImplPtr Permuted(const TensorImplPtr& t, const DimVector& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return ops::permute(t, perm);
  }
  return t;
}
TensorImplPtr Reshaped(const TensorImplPtr& t, const DimVector& shape) {
  return t->shape() == shape ? t : ops::reshape(t, shape);
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
    small.t = ops::expand(small.t, shape);
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
  TensorImplPtr r = ops::bmm(ta, tb);
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
  const std::string eq = call.get(arg::einsum::equation);
  const TensorList tensors = call.get(arg::einsum::tensors);
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
  std::vector<Operand> operands(terms.size());
  std::vector<int64_t> size(kLetters + ell, -1);
  std::vector<int> size_from(kLetters + ell, -1);
  for (size_t i = 0; i < terms.size(); ++i) {
    Operand& op = operands[i];
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
        op.t = ops::diagonal(op.t, int64_t{0}, static_cast<int64_t>(p), static_cast<int64_t>(q));
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
    for (size_t j = 0; j < operands.size(); ++j) {
      if (j == skip_a || j == skip_b) continue;
      n.insert(n.end(), operands[j].labels.begin(), operands[j].labels.end());
    }
    return n;
  };
  for (size_t i = 0; i < operands.size(); ++i) SumUnneeded(operands[i], needed(i, i));
  // Pairwise contraction, each time the pair with the smallest result.
  while (operands.size() > 1) {
    size_t best_i = 0, best_j = 1;
    double best = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < operands.size(); ++i) {
      for (size_t j = i + 1; j < operands.size(); ++j) {
        std::vector<int> keep = needed(i, j);
        double s = 1;
        std::vector<int> seen;
        for (const Operand* op : {&operands[i], &operands[j]}) {
          for (size_t d = 0; d < op->labels.size(); ++d) {
            int l = op->labels[d];
            if (!Contains(keep, l) || Contains(seen, l)) continue;
            seen.push_back(l);
            s *= static_cast<double>(std::max(SizeOf(operands[i], l), SizeOf(operands[j], l)));
          }
        }
        if (s < best) {
          best = s;
          best_i = i;
          best_j = j;
        }
      }
    }
    Operand r = Contract(operands[best_i], operands[best_j], needed(best_i, best_j));
    operands.erase(operands.begin() + best_j);
    operands.erase(operands.begin() + best_i);
    operands.push_back(std::move(r));
  }
  Operand& last = operands[0];
  SumUnneeded(last, out_labels);
  DimVector perm;
  for (int l : out_labels) {
    auto it = std::find(last.labels.begin(), last.labels.end(), l);
    perm.push_back(static_cast<int64_t>(it - last.labels.begin()));
  }
  call.outputs = {Permuted(last.t, perm)};
}

OF_OP("einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor")
    .Composite(Einsum)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone, amp::kLower);

// ---- tensordot -----------------------------------------------------------------

void Tensordot(OpCall& call) {
  TensorImplPtr a = call.tensor(arg::tensordot::self), b = call.tensor(arg::tensordot::other);
  const DimVector da = call.get(arg::tensordot::dims_self),
                  db = call.get(arg::tensordot::dims_other);
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
  call.outputs = {Reshaped(ops::mm(ma, mb), out_shape)};
}
OF_OP("tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor")
    .Composite(Tensordot)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone, amp::kPromote);

// ---- cross -----------------------------------------------------------------------

// a x b along a dim of size 3 (the first such dim of the broadcast shape when
// dim is None, PyTorch's deprecated default).
void Cross(OpCall& call) {
  const TensorImplPtr &a = call.tensor(arg::cross::self), &b = call.tensor(arg::cross::other);
  const std::optional<int64_t> dim_arg = call.get(arg::cross::dim);
  const char* op = "linalg.cross";
  OF_CHECK(a->ndim() == b->ndim(), RuntimeError, op,
           ": inputs must have the same number of dimensions (got shapes ",
           ShapeToString(a->shape()), " and ", ShapeToString(b->shape()), ")");
  OF_CHECK(a->dtype() == b->dtype(), RuntimeError, op,
           ": expected both inputs to have the same dtype, but got ", LegacyTypeName(a->dtype()),
           " and ", LegacyTypeName(b->dtype()));
  DimVector shape = BroadcastShapes(a->shape(), b->shape(), op);
  int64_t dim;
  if (!dim_arg) {
    auto it = std::find(shape.begin(), shape.end(), 3);
    OF_CHECK(it != shape.end(), RuntimeError, op, ": no dimension of size 3 in input (shape ",
             ShapeToString(shape), ")");
    dim = it - shape.begin();
  } else {
    dim = WrapDim(*dim_arg, static_cast<int64_t>(shape.size()));
    OF_CHECK(a->shape()[dim] == 3 && b->shape()[dim] == 3, RuntimeError, op, ": inputs dimension ",
             *dim_arg, " must have length 3. Got ", a->shape()[dim], " and ", b->shape()[dim],
             " (shapes ", ShapeToString(a->shape()), " and ", ShapeToString(b->shape()), ")");
  }
  auto at = [dim](const TensorImplPtr& t, int64_t i) { return ops::select(t, dim, i); };
  TensorImplPtr c0 = Sub(Mul(at(a, 1), at(b, 2)), Mul(at(a, 2), at(b, 1)));
  TensorImplPtr c1 = Sub(Mul(at(a, 2), at(b, 0)), Mul(at(a, 0), at(b, 2)));
  TensorImplPtr c2 = Sub(Mul(at(a, 0), at(b, 1)), Mul(at(a, 1), at(b, 0)));
  call.outputs = {ops::stack(TensorList{c0, c1, c2}, dim)};
}
OF_OP("cross(Tensor self, Tensor other, int? dim=None) -> Tensor")
    .Composite(Cross)
    .Sbp(sbp::NoSplitRuleYet())
    .Autocast(amp::kNone, amp::kPromote);

}  // namespace
}  // namespace defs
}  // namespace oneflow
