#include "core/framework/schema.h"

#include <cctype>
#include <cstdlib>

#include "core/runtime/error.h"

namespace oneflow {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Schema Parse() {
    Schema s;
    s.text = std::string(text_);
    s.name = Ident();
    if (Accept('.')) s.overload = Ident();
    Expect('(');
    bool kwarg_only = false;
    if (!Accept(')')) {
      do {
        if (Accept('*')) {
          kwarg_only = true;
          continue;
        }
        ArgSpec a = Arg();
        a.kwarg_only = kwarg_only;
        s.args.push_back(std::move(a));
      } while (Accept(','));
      Expect(')');
    }
    Expect('-');
    Expect('>');
    if (Accept('(')) {
      do {
        s.returns.push_back(Return());
      } while (Accept(','));
      Expect(')');
    } else {
      s.returns.push_back(Return());
    }
    SkipSpace();
    if (pos_ != text_.size()) Fail("trailing text");
    return s;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) {
    OF_THROW(ValueError, "bad op schema '", text_, "': ", what, " at column ", pos_);
  }
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Accept(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void Expect(char c) {
    if (!Accept(c)) Fail(std::string("expected '") + c + "'");
  }
  bool AcceptWord(std::string_view w) {
    SkipSpace();
    if (text_.substr(pos_, w.size()) == w) {
      pos_ += w.size();
      return true;
    }
    return false;
  }
  std::string Ident() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    if (start == pos_) Fail("expected a name");
    return std::string(text_.substr(start, pos_ - start));
  }

  ArgType Type(int* list_size, bool* mutated, bool* aliased = nullptr) {
    std::string t = Ident();
    if (Accept('(')) {  // alias annotation: (a) or (a!)
      Ident();
      *mutated = Accept('!');
      if (aliased) *aliased = true;
      Expect(')');
    }
    ArgType type;
    if (t == "Tensor") {
      type = ArgType::kTensor;
    } else if (t == "Scalar") {
      type = ArgType::kScalar;
    } else if (t == "int" || t == "SymInt") {
      type = ArgType::kInt;
    } else if (t == "float") {
      type = ArgType::kFloat;
    } else if (t == "bool") {
      type = ArgType::kBool;
    } else if (t == "ScalarType") {
      type = ArgType::kDType;
    } else if (t == "Device") {
      type = ArgType::kDevice;
    } else if (t == "str") {
      type = ArgType::kStr;
    } else if (t == "Generator") {
      type = ArgType::kGenerator;
    } else {
      Fail("unknown type '" + t + "'");
    }
    if (Accept('[')) {
      SkipSpace();
      if (std::isdigit(static_cast<unsigned char>(text_[pos_])))
        *list_size = std::atoi(&text_[pos_]);
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      Expect(']');
      if (type == ArgType::kTensor) {
        type = ArgType::kTensorList;
      } else if (type == ArgType::kInt) {
        type = ArgType::kIntList;
      } else {
        Fail("only Tensor[] and int[] lists are supported");
      }
    }
    return type;
  }

  std::string Token() {
    SkipSpace();
    size_t start = pos_;
    if (pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"')) {
      char q = text_[pos_++];
      while (pos_ < text_.size() && text_[pos_] != q) ++pos_;
      ++pos_;
      return std::string(text_.substr(start, pos_ - start));
    }
    int depth = 0;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '[') ++depth;
      if (c == ']') --depth;
      if (depth == 0 && (c == ',' || c == ')')) break;
      ++pos_;
    }
    std::string tok(text_.substr(start, pos_ - start));
    while (!tok.empty() && std::isspace(static_cast<unsigned char>(tok.back()))) tok.pop_back();
    return tok;
  }

  Value Default(const ArgSpec& a, const std::string& tok) {
    if (tok == "None") {
      if (!a.optional) Fail("default None for a non-optional argument '" + a.name + "'");
      return Value();
    }
    switch (a.type) {
      case ArgType::kBool:
        if (tok != "True" && tok != "False") Fail("bad bool default " + tok);
        return Value(tok == "True");
      case ArgType::kInt:
        return Value(static_cast<int64_t>(std::stoll(tok)));
      case ArgType::kFloat:
        return Value(std::stod(tok));
      case ArgType::kScalar:
        // Booleans first: "True" and "False" contain an 'e'.
        if (tok == "True" || tok == "False") return Value(Scalar::Bool(tok == "True"));
        if (tok.find_first_of(".eEin") != std::string::npos) {  // 0.5, 1e-5, inf, -inf, nan
          return Value(Scalar::Float(std::stod(tok)));
        }
        return Value(Scalar::Int(std::stoll(tok)));
      case ArgType::kIntList: {
        DimVector v;
        if (tok.front() == '[') {
          std::string body = tok.substr(1, tok.size() - 2);
          size_t p = 0;
          while (p < body.size()) {
            size_t q = body.find(',', p);
            if (q == std::string::npos) q = body.size();
            std::string item = body.substr(p, q - p);
            if (item.find_first_not_of(" ") != std::string::npos) v.push_back(std::stoll(item));
            p = q + 1;
          }
        } else {
          v.assign(a.list_size > 0 ? a.list_size : 1, std::stoll(tok));
        }
        return Value(v);
      }
      case ArgType::kStr:
        if (tok.size() < 2 || (tok.front() != '\'' && tok.front() != '"')) Fail("bad str default");
        return Value(tok.substr(1, tok.size() - 2));
      default:
        Fail("unsupported default '" + tok + "' for argument '" + a.name + "'");
    }
  }

  ArgSpec Arg() {
    ArgSpec a;
    a.type = Type(&a.list_size, &a.mutated);
    a.optional = Accept('?');
    a.name = Ident();
    if (Accept('=')) {
      a.has_default = true;
      a.default_value = Default(a, Token());
    }
    return a;
  }

  ReturnSpec Return() {
    ReturnSpec r;
    int list_size = 0;
    bool mutated = false;
    r.type = Type(&list_size, &mutated, &r.aliases_input);
    SkipSpace();
    if (pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      r.name = Ident();
    }
    return r;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

const char* ArgTypeName(ArgType type) {
  switch (type) {
    case ArgType::kTensor:
      return "Tensor";
    case ArgType::kTensorList:
      return "tuple of Tensors";
    case ArgType::kScalar:
      return "Number";
    case ArgType::kInt:
      return "int";
    case ArgType::kIntList:
      return "tuple of ints";
    case ArgType::kFloat:
      return "float";
    case ArgType::kBool:
      return "bool";
    case ArgType::kDType:
      return "oneflow.dtype";
    case ArgType::kDevice:
      return "oneflow.device";
    case ArgType::kStr:
      return "str";
    case ArgType::kGenerator:
      return "oneflow.Generator";
  }
  return "?";
}

int Schema::ArgIndex(std::string_view arg_name) const {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].name == arg_name) return static_cast<int>(i);
  }
  return -1;
}

Schema ParseSchema(std::string_view text) { return Parser(text).Parse(); }

}  // namespace oneflow
