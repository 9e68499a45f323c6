#include "chunkwise/formats/bcolz/predicate.h"

#include <algorithm>
#include <cstring>
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
      literal.is_string = true;
      literal.text = std::string(text_.substr(pos_, end - pos_));
      pos_ = end + 1;
    } else if (Accept("True") || Accept("False")) {
      literal.number = text_[start] == 'T' ? 1 : 0;
    } else {
      const std::string token(
          text_.substr(pos_, text_.find_first_of(" \t\r\n()&|~<>=!", pos_) - pos_));
      char* end = nullptr;
      literal.number = std::strtold(token.c_str(), &end);
      if (token.empty() || end != token.c_str() + token.size()) return Error("expected a literal");
      pos_ += token.size();
    }
    literal.source = std::string(text_.substr(start, pos_ - start));
    return literal;
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

// The element at `p` as a number; kinds b i u f M m (checked by Check).
long double NumberAt(const core::NpyDtype& dtype, const std::uint8_t* p) {
  const bool big = dtype.byte_order() == core::NpyDtype::ByteOrder::kBig;
  const std::size_t size = dtype.itemsize();
  switch (dtype.kind()) {
    case 'b':
      return p[0] != 0 ? 1 : 0;
    case 'u':
      return size == 1   ? p[0]
             : size == 2 ? LoadAs<std::uint16_t>(p, big)
             : size == 4 ? LoadAs<std::uint32_t>(p, big)
                         : static_cast<long double>(LoadAs<std::uint64_t>(p, big));
    case 'f':
      return size == 4   ? LoadAs<float>(p, big)
             : size == 8 ? LoadAs<double>(p, big)
                         : 0;  // Check rejects other float widths.
    default:                   // i, M, m
      return size == 1   ? static_cast<std::int8_t>(p[0])
             : size == 2 ? LoadAs<std::int16_t>(p, big)
             : size == 4 ? LoadAs<std::int32_t>(p, big)
                         : static_cast<long double>(LoadAs<std::int64_t>(p, big));
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
    const core::NpyDtype& dtype = it->second;
    const bool text = dtype.kind() == 'S' || dtype.kind() == 'U';
    const bool number = std::string_view("biuMm").find(dtype.kind()) != std::string_view::npos ||
                        (dtype.kind() == 'f' && (dtype.itemsize() == 4 || dtype.itemsize() == 8));
    if (dtype.is_structured() || (!text && !number) || text != node.literal.is_string) {
      return Status::InvalidArgument("predicate: column \"" + node.column + "\" of dtype " +
                                     dtype.ToDescr() + " cannot be compared with " +
                                     node.literal.source);
    }
  }
  return Status::Ok();
}

void Predicate::EvaluateNode(int index, const std::map<std::string, ColumnBlock>& blocks,
                             std::size_t rows, std::vector<std::uint8_t>& out) const {
  const Node& node = nodes_[index];
  if (node.kind == Node::Kind::kCompare) {
    const ColumnBlock& block = blocks.at(node.column);
    out.resize(rows);
    for (std::size_t i = 0; i < rows; ++i) {
      const std::uint8_t* p = block.data.data() + i * block.stride;
      out[i] = node.literal.is_string
                   ? Compare(node.op, StringAt(block.dtype, p), node.literal.text)
                   : Compare(node.op, NumberAt(block.dtype, p), node.literal.number);
    }
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
