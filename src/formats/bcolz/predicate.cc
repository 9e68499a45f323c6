#include "formats/bcolz/predicate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>

namespace chunkwise::formats::bcolz {
namespace {

using Node = Predicate::Node;
using Op = Predicate::Op;

// Recursive-descent parser over the expression text.
class Parser {
 public:
  Parser(std::string_view text, std::vector<Node>& nodes) : text_(text), nodes_(nodes) {}

  Result<int> ParseAll() {
    CHUNKWISE_ASSIGN_OR_RETURN(int root, ParseOr());
    if (too_many_) return Error("more than 150 terms");
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text");
    return root;
  }

 private:
  static constexpr int kMaxDepth = 200;
  static constexpr std::size_t kMaxNodes = 150;

  Status Error(const std::string& what) const {
    return Status::InvalidArgument("predicate \"" + std::string(text_) + "\": " + what +
                                   " at offset " + std::to_string(pos_));
  }
  void SkipSpace() {
    while (pos_ < text_.size() && std::strchr(" \t\r\n", text_[pos_]) != nullptr) ++pos_;
  }
  bool Accept(std::string_view token) {
    SkipSpace();
    if (text_.substr(pos_).starts_with(token)) {
      pos_ += token.size();
      return true;
    }
    return false;
  }
  int Add(Node node) {
    // Bounds the canonical form's nesting too, so that ToString parses back.
    if (nodes_.size() >= kMaxNodes) too_many_ = true;
    nodes_.push_back(std::move(node));
    return static_cast<int>(nodes_.size()) - 1;
  }
  Result<int> Binary(Node::Kind kind, int left, int right) {
    Node node;
    node.kind = kind;
    node.left = left;
    node.right = right;
    return Add(std::move(node));
  }

  Result<int> ParseOr() {
    CHUNKWISE_ASSIGN_OR_RETURN(int left, ParseAnd());
    while (Accept("|")) {
      CHUNKWISE_ASSIGN_OR_RETURN(int right, ParseAnd());
      CHUNKWISE_ASSIGN_OR_RETURN(left, Binary(Node::Kind::kOr, left, right));
    }
    return left;
  }
  Result<int> ParseAnd() {
    CHUNKWISE_ASSIGN_OR_RETURN(int left, ParseUnary());
    while (Accept("&")) {
      CHUNKWISE_ASSIGN_OR_RETURN(int right, ParseUnary());
      CHUNKWISE_ASSIGN_OR_RETURN(left, Binary(Node::Kind::kAnd, left, right));
    }
    return left;
  }
  Result<int> ParseUnary() {
    if (++depth_ > kMaxDepth) return Error("nesting too deep");
    Result<int> result = ParseUnaryInner();
    --depth_;
    return result;
  }
  Result<int> ParseUnaryInner() {
    if (Accept("~")) {
      CHUNKWISE_ASSIGN_OR_RETURN(int operand, ParseUnary());
      return Binary(Node::Kind::kNot, operand, -1);
    }
    if (Accept("(")) {
      CHUNKWISE_ASSIGN_OR_RETURN(int inner, ParseOr());
      if (!Accept(")")) return Error("expected ')'");
      return inner;
    }
    return ParseComparison();
  }

  // An identifier, or nullopt-like empty string when none starts here.
  std::string ParseIdentifier() {
    SkipSpace();
    const std::size_t start = pos_;
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    if (pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      while (pos_ < text_.size() && word(text_[pos_])) ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  Result<Predicate::Literal> ParseLiteral() {
    SkipSpace();
    Predicate::Literal literal;
    const std::size_t start = pos_;
    if (pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"')) {
      const char quote = text_[pos_++];
      const std::size_t end = text_.find(quote, pos_);
      if (end == std::string_view::npos) return Error("unterminated string");
      literal.kind = Predicate::Literal::Kind::kString;
      literal.text = std::string(text_.substr(pos_, end - pos_));
      pos_ = end + 1;
    } else if (Accept("True") || Accept("False")) {
      literal.kind = Predicate::Literal::Kind::kBool;
      literal.magnitude = text_[start] == 'T' ? 1 : 0;
      literal.real = static_cast<double>(literal.magnitude);
    } else {
      const std::string token(
          text_.substr(pos_, text_.find_first_of(" \t\r\n()&|~<>=!", pos_) - pos_));
      if (!ParseNumber(token, literal)) return Error("expected a literal");
      pos_ += token.size();
    }
    literal.source = std::string(text_.substr(start, pos_ - start));
    return literal;
  }

  // Integers accumulate exactly into a 64-bit magnitude (`huge` beyond it).
  static bool ParseInteger(std::string_view digits, int base, Predicate::Literal& literal) {
    if (digits.empty()) return false;
    long double approximate = 0;  // Only for a huge 0o/0b literal's float value.
    for (const char c : digits) {
      const int digit = std::isdigit(static_cast<unsigned char>(c))
                            ? c - '0'
                            : (std::isxdigit(static_cast<unsigned char>(c))
                                   ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                                   : base);
      if (digit >= base) return false;
      const auto b = static_cast<std::uint64_t>(base);
      if (literal.magnitude > (~std::uint64_t{0} - static_cast<std::uint64_t>(digit)) / b) {
        literal.huge = true;
      }
      literal.magnitude = literal.magnitude * b + static_cast<std::uint64_t>(digit);
      approximate = approximate * base + digit;
    }
    literal.kind = Predicate::Literal::Kind::kInteger;
    literal.real =
        literal.huge ? static_cast<double>(approximate) : static_cast<double>(literal.magnitude);
    return true;
  }

  // A Python-style number: [+-] then digits, 0x/0o/0b digits, a decimal
  // float with '.' or an exponent, or inf/infinity/nan.
  static bool ParseNumber(const std::string& token, Predicate::Literal& literal) {
    std::string_view body(token);
    if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
      literal.negative = body[0] == '-';
      body.remove_prefix(1);
    }
    std::string lower(body);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "inf" || lower == "infinity" || lower == "nan") {
      literal.kind = Predicate::Literal::Kind::kFloat;
      literal.real = lower == "nan" ? std::numeric_limits<double>::quiet_NaN()
                                    : std::numeric_limits<double>::infinity();
      if (literal.negative) literal.real = -literal.real;
      return true;
    }
    if (lower.size() > 2 && lower[0] == '0' && std::strchr("xob", lower[1]) != nullptr) {
      const int base = lower[1] == 'x' ? 16 : lower[1] == 'o' ? 8 : 2;
      if (!ParseInteger(std::string_view(lower).substr(2), base, literal)) return false;
      if (base == 16) literal.real = std::strtod(("0" + lower.substr(1)).c_str(), nullptr);
    } else if (!lower.empty() && lower.find_first_not_of("0123456789") == std::string::npos) {
      if (!ParseInteger(lower, 10, literal)) return false;
      literal.real = std::strtod(lower.c_str(), nullptr);  // Correctly rounded, as Python.
    } else {
      if (!IsDecimalFloat(lower)) return false;
      literal.kind = Predicate::Literal::Kind::kFloat;
      literal.real = std::strtod(lower.c_str(), nullptr);  // 1e400 is inf, as in Python.
    }
    if (literal.kind == Predicate::Literal::Kind::kInteger) {
      literal.real_overflows = std::isinf(literal.real);
    }
    if (literal.negative) literal.real = -literal.real;
    if (literal.magnitude == 0 && !literal.huge) literal.negative = false;  // -0 is 0.
    return true;
  }

  // digits [. digits] [e [+-] digits], with a digit before or after the '.'.
  static bool IsDecimalFloat(std::string_view text) {
    std::size_t i = 0, digits = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
    if (i < text.size() && text[i] == '.') {
      ++i;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
    }
    if (digits == 0) return false;
    if (i < text.size() && text[i] == 'e') {
      ++i;
      if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
      const std::size_t exponent = i;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
      if (i == exponent) return false;
    }
    return i == text.size();
  }

  Result<Op> ParseOp() {
    static constexpr std::pair<std::string_view, Op> kOps[] = {
        {"<=", Op::kLessEqual}, {">=", Op::kGreaterEqual}, {"==", Op::kEqual},
        {"!=", Op::kNotEqual},  {"<", Op::kLess},          {">", Op::kGreater}};
    for (const auto& [token, op] : kOps) {
      if (Accept(token)) return op;
    }
    return Error("expected a comparison operator");
  }

  // True and False are literals, never column names.
  static bool IsBooleanWord(std::string_view word) { return word == "True" || word == "False"; }

  static Op Mirror(Op op) {
    switch (op) {
      case Op::kLess:
        return Op::kGreater;
      case Op::kLessEqual:
        return Op::kGreaterEqual;
      case Op::kGreater:
        return Op::kLess;
      case Op::kGreaterEqual:
        return Op::kLessEqual;
      default:
        return op;
    }
  }

  Result<int> ParseComparison() {
    Node node;
    const std::size_t start = pos_;
    node.column = ParseIdentifier();
    const bool column_first = !node.column.empty() && !IsBooleanWord(node.column);
    if (!column_first) {
      pos_ = start;
      CHUNKWISE_ASSIGN_OR_RETURN(node.literal, ParseLiteral());
    }
    CHUNKWISE_ASSIGN_OR_RETURN(node.op, ParseOp());
    if (column_first) {
      CHUNKWISE_ASSIGN_OR_RETURN(node.literal, ParseLiteral());
    } else {
      node.column = ParseIdentifier();
      if (node.column.empty() || IsBooleanWord(node.column)) return Error("expected a column name");
      node.op = Mirror(node.op);
    }
    return Add(std::move(node));
  }

  std::string_view text_;
  std::vector<Node>& nodes_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  bool too_many_ = false;
};

template <typename T>
T LoadAs(const std::uint8_t* p, bool big_endian) {
  std::uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, p, sizeof(T));
  if (big_endian) std::reverse(bytes, bytes + sizeof(T));
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

// Where a comparison is done (see the header): in the literal's exact
// integer value, in floats (the column's float type, or float64), or as text.
enum class Domain { kText, kExact, kFloat };

// `x` rounded to the nearest value of a binary float type with `bits`
// significand bits, smallest ulp 2^min_ulp_exponent and largest finite
// value `max_finite`, ties to even, as a C cast (without its UB on overflow).
double RoundToBinary(double x, int bits, int min_ulp_exponent, double max_finite) {
  if (!std::isfinite(x) || x == 0) return x;
  int exponent = 0;
  std::frexp(std::fabs(x), &exponent);
  const int ulp_exponent = std::max(exponent - bits, min_ulp_exponent);
  double rounded =
      std::ldexp(std::nearbyint(std::ldexp(std::fabs(x), -ulp_exponent)), ulp_exponent);
  if (rounded > max_finite) rounded = std::numeric_limits<double>::infinity();
  return std::copysign(rounded, x);
}

// `x` as the float column type of `itemsize` bytes would hold it.
double RoundToColumnFloat(double x, std::size_t itemsize) {
  if (itemsize == 2) return RoundToBinary(x, 11, -24, 65504.0);
  if (itemsize == 4) {
    return RoundToBinary(x, 24, -149, static_cast<double>(std::numeric_limits<float>::max()));
  }
  return x;
}

double HalfToDouble(std::uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  double value = exponent == 0    ? std::ldexp(mantissa, -24)
                 : exponent == 31 ? (mantissa != 0 ? std::numeric_limits<double>::quiet_NaN()
                                                   : std::numeric_limits<double>::infinity())
                                  : std::ldexp(mantissa + 1024, exponent - 25);
  return (bits & 0x8000) != 0 ? -value : value;
}

bool Holds(Op op, int order) {  // order: <0, 0, >0 for column <, ==, > literal.
  switch (op) {
    case Op::kLess:
      return order < 0;
    case Op::kLessEqual:
      return order <= 0;
    case Op::kGreater:
      return order > 0;
    case Op::kGreaterEqual:
      return order >= 0;
    case Op::kEqual:
      return order == 0;
    case Op::kNotEqual:
      return order != 0;
  }
  return false;
}

int Order(std::uint64_t value, const Predicate::Literal& literal) {
  if (literal.negative) return 1;
  if (literal.huge) return -1;
  return value < literal.magnitude ? -1 : (value == literal.magnitude ? 0 : 1);
}

int Order(std::int64_t value, const Predicate::Literal& literal) {
  if (!literal.negative) return value < 0 ? -1 : Order(static_cast<std::uint64_t>(value), literal);
  constexpr std::uint64_t kMinMagnitude = std::uint64_t{1} << 63;  // |INT64_MIN|
  if (literal.huge || literal.magnitude > kMinMagnitude) return 1;
  if (value >= 0) return 1;
  // Both negative: compare magnitudes the other way round.
  const std::uint64_t value_magnitude = static_cast<std::uint64_t>(-(value + 1)) + 1;
  return value_magnitude > literal.magnitude ? -1 : (value_magnitude == literal.magnitude ? 0 : 1);
}

bool FitsInt64(const Predicate::Literal& literal) {
  constexpr std::uint64_t kMinMagnitude = std::uint64_t{1} << 63;
  return !literal.huge && (literal.negative ? literal.magnitude <= kMinMagnitude
                                            : literal.magnitude < kMinMagnitude);
}

bool ComparableNumber(const core::NpyDtype& dtype) {
  if (dtype.kind() == 'f')
    return dtype.itemsize() == 2 || dtype.itemsize() == 4 || dtype.itemsize() == 8;
  if (std::string_view("iuMm").find(dtype.kind()) != std::string_view::npos) {
    return dtype.itemsize() == 1 || dtype.itemsize() == 2 || dtype.itemsize() == 4 ||
           dtype.itemsize() == 8;
  }
  return dtype.kind() == 'b' && dtype.itemsize() == 1;
}

// The domain `column OP literal` is compared in, or why it cannot be.
Result<Domain> Bind(const std::string& column, const core::NpyDtype& dtype,
                    const Predicate::Literal& literal) {
  auto refuse = [&](const std::string& why) {
    return Status::InvalidArgument(
        "predicate: column \"" + column + "\" of dtype " +
        (dtype.is_structured() ? std::string("(structured)") : dtype.ToDescr()) +
        " cannot be compared with " + literal.source + why);
  };
  using Kind = Predicate::Literal::Kind;
  const bool text = !dtype.is_structured() && (dtype.kind() == 'S' || dtype.kind() == 'U');
  if (text || literal.is_string()) {
    if (text && literal.is_string()) return Domain::kText;
    return refuse("");
  }
  if (dtype.is_structured() || !ComparableNumber(dtype)) return refuse("");
  if (dtype.kind() == 'f') {
    if (literal.real_overflows) return refuse(": the integer is too large for a float");
    return Domain::kFloat;
  }
  if (literal.kind == Kind::kFloat) {
    if (dtype.kind() == 'M' || dtype.kind() == 'm') return refuse(": use an integer count");
    return Domain::kFloat;
  }
  if (dtype.kind() == 'b' && !FitsInt64(literal)) return refuse(": outside int64");
  return Domain::kExact;
}

// Sets out[i] = test(element i loaded as T) for every row.
template <typename T, typename Test>
void Scan(const ColumnBlock& block, std::size_t rows, const Test& test,
          std::vector<std::uint8_t>& out) {
  const bool big = block.dtype.byte_order() == core::NpyDtype::ByteOrder::kBig;
  for (std::size_t i = 0; i < rows; ++i) {
    out[i] = test(LoadAs<T>(block.data.data() + i * block.stride, big)) ? 1 : 0;
  }
}

// Compares every element as a double (exact for f2/f4/f8, a C cast for ints).
template <typename Test>
void ScanAsDouble(const ColumnBlock& block, std::size_t rows, const Test& test,
                  std::vector<std::uint8_t>& out) {
  auto as = [&test](auto convert) { return [&test, convert](auto v) { return test(convert(v)); }; };
  auto cast = [](auto v) { return static_cast<double>(v); };
  const std::size_t size = block.dtype.itemsize();
  switch (block.dtype.kind()) {
    case 'b':
      return Scan<std::uint8_t>(block, rows, as([](std::uint8_t v) { return v != 0 ? 1.0 : 0.0; }),
                                out);
    case 'f':
      if (size == 2) return Scan<std::uint16_t>(block, rows, as(HalfToDouble), out);
      if (size == 4) return Scan<float>(block, rows, as(cast), out);
      return Scan<double>(block, rows, as(cast), out);
    case 'u':
      if (size == 1) return Scan<std::uint8_t>(block, rows, as(cast), out);
      if (size == 2) return Scan<std::uint16_t>(block, rows, as(cast), out);
      if (size == 4) return Scan<std::uint32_t>(block, rows, as(cast), out);
      return Scan<std::uint64_t>(block, rows, as(cast), out);
    default:  // i (Bind keeps M and m out)
      if (size == 1) return Scan<std::int8_t>(block, rows, as(cast), out);
      if (size == 2) return Scan<std::int16_t>(block, rows, as(cast), out);
      if (size == 4) return Scan<std::int32_t>(block, rows, as(cast), out);
      return Scan<std::int64_t>(block, rows, as(cast), out);
  }
}

// Compares every element exactly as an integer: u as uint64, the rest int64.
template <typename Test>
void ScanAsInteger(const ColumnBlock& block, std::size_t rows, const Test& test,
                   std::vector<std::uint8_t>& out) {
  auto as_signed = [&test](auto v) { return test(static_cast<std::int64_t>(v)); };
  auto as_unsigned = [&test](auto v) { return test(static_cast<std::uint64_t>(v)); };
  const std::size_t size = block.dtype.itemsize();
  switch (block.dtype.kind()) {
    case 'b':
      return Scan<std::uint8_t>(
          block, rows, [&test](std::uint8_t v) { return test(std::uint64_t{v != 0}); }, out);
    case 'u':
      if (size == 1) return Scan<std::uint8_t>(block, rows, as_unsigned, out);
      if (size == 2) return Scan<std::uint16_t>(block, rows, as_unsigned, out);
      if (size == 4) return Scan<std::uint32_t>(block, rows, as_unsigned, out);
      return Scan<std::uint64_t>(block, rows, as_unsigned, out);
    default:  // i, M, m
      if (size == 1) return Scan<std::int8_t>(block, rows, as_signed, out);
      if (size == 2) return Scan<std::int16_t>(block, rows, as_signed, out);
      if (size == 4) return Scan<std::int32_t>(block, rows, as_signed, out);
      return Scan<std::int64_t>(block, rows, as_signed, out);
  }
}

// The element at `p` of an 'S' or 'U' dtype as UTF-8, without trailing NULs.
std::string StringAt(const core::NpyDtype& dtype, const std::uint8_t* p) {
  std::string text;
  if (dtype.kind() == 'S') {
    text.assign(reinterpret_cast<const char*>(p), dtype.itemsize());
  } else {
    const bool big = dtype.byte_order() == core::NpyDtype::ByteOrder::kBig;
    for (std::size_t i = 0; i < dtype.itemsize() / 4; ++i) {
      const std::uint32_t code = LoadAs<std::uint32_t>(p + 4 * i, big);
      if (code == 0 || code > 0x10FFFF) break;
      core::detail::AppendUtf8(code, text);
    }
  }
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

template <typename T>
bool Compare(Op op, const T& a, const T& b) {
  switch (op) {
    case Op::kLess:
      return a < b;
    case Op::kLessEqual:
      return a <= b;
    case Op::kGreater:
      return a > b;
    case Op::kGreaterEqual:
      return a >= b;
    case Op::kEqual:
      return a == b;
    case Op::kNotEqual:
      return a != b;
  }
  return false;
}

const char* OpText(Op op) {
  static constexpr const char* kText[] = {"<", "<=", ">", ">=", "==", "!="};
  return kText[static_cast<int>(op)];
}

// out[i] = whether row i of `block` satisfies the comparison `node`.
void EvaluateComparison(const Node& node, const ColumnBlock& block, std::size_t rows,
                        std::vector<std::uint8_t>& out) {
  out.assign(rows, 0);
  const Result<Domain> domain = Bind(node.column, block.dtype, node.literal);
  if (!domain.ok()) return;  // Check() refuses these first.
  const Op op = node.op;
  switch (*domain) {
    case Domain::kText:
      for (std::size_t i = 0; i < rows; ++i) {
        out[i] = Compare(op, StringAt(block.dtype, block.data.data() + i * block.stride),
                         node.literal.text);
      }
      return;
    case Domain::kFloat: {
      const double literal = block.dtype.kind() == 'f'
                                 ? RoundToColumnFloat(node.literal.real, block.dtype.itemsize())
                                 : node.literal.real;
      ScanAsDouble(
          block, rows, [op, literal](double v) { return Compare(op, v, literal); }, out);
      return;
    }
    case Domain::kExact: {
      const Predicate::Literal& literal = node.literal;
      ScanAsInteger(
          block, rows, [op, &literal](auto v) { return Holds(op, Order(v, literal)); }, out);
      return;
    }
  }
}

}  // namespace

Result<Predicate> Predicate::Parse(std::string_view text) {
  Predicate predicate;
  Parser parser(text, predicate.nodes_);
  CHUNKWISE_ASSIGN_OR_RETURN(predicate.root_, parser.ParseAll());
  return predicate;
}

std::vector<std::string> Predicate::columns() const {
  std::set<std::string> names;
  for (const Node& node : nodes_) {
    if (node.kind == Node::Kind::kCompare) names.insert(node.column);
  }
  return {names.begin(), names.end()};
}

Status Predicate::Check(const std::map<std::string, core::NpyDtype>& dtypes) const {
  for (const Node& node : nodes_) {
    if (node.kind != Node::Kind::kCompare) continue;
    const auto it = dtypes.find(node.column);
    if (it == dtypes.end()) {
      return Status::InvalidArgument("predicate: no column \"" + node.column + "\"");
    }
    CHUNKWISE_RETURN_IF_ERROR(Bind(node.column, it->second, node.literal).status());
  }
  return Status::Ok();
}

void Predicate::EvaluateNode(int index, const std::map<std::string, ColumnBlock>& blocks,
                             std::size_t rows, std::vector<std::uint8_t>& out) const {
  const Node& node = nodes_[index];
  if (node.kind == Node::Kind::kCompare) {
    EvaluateComparison(node, blocks.at(node.column), rows, out);
    return;
  }
  EvaluateNode(node.left, blocks, rows, out);
  if (node.kind == Node::Kind::kNot) {
    for (std::uint8_t& value : out) value = value ^ 1;
    return;
  }
  std::vector<std::uint8_t> right;
  EvaluateNode(node.right, blocks, rows, right);
  for (std::size_t i = 0; i < rows; ++i) {
    out[i] = node.kind == Node::Kind::kAnd ? (out[i] & right[i]) : (out[i] | right[i]);
  }
}

std::vector<std::uint8_t> Predicate::Evaluate(const std::map<std::string, ColumnBlock>& blocks,
                                              std::size_t rows) const {
  std::vector<std::uint8_t> out;
  EvaluateNode(root_, blocks, rows, out);
  return out;
}

std::string Predicate::NodeToString(int index) const {
  // Built with append: GCC 12 warns falsely (-Wrestrict) on chains of operator+.
  const Node& node = nodes_[index];
  std::string text;
  if (node.kind == Node::Kind::kNot) {
    text.append("~").append(NodeToString(node.left));
    return text;
  }
  text.append("(");
  if (node.kind == Node::Kind::kCompare) {
    text.append(node.column).append(" ").append(OpText(node.op)).append(" ");
    text.append(node.literal.source);
  } else {
    text.append(NodeToString(node.left));
    text.append(node.kind == Node::Kind::kAnd ? " & " : " | ");
    text.append(NodeToString(node.right));
  }
  text.append(")");
  return text;
}

std::string Predicate::ToString() const { return NodeToString(root_); }

}  // namespace chunkwise::formats::bcolz
