#include "formats/refs/reference_template.h"

#include <cctype>

namespace chunkwise::formats::refs {
namespace {

constexpr int kMaxDepth = 64;

std::string AsText(const TemplateValue& value) {
  if (const auto* number = std::get_if<std::int64_t>(&value)) return std::to_string(*number);
  return std::get<std::string>(value);
}

// Recursive descent over one expression; `at_` moves through `text_`.
class ExpressionParser {
 public:
  ExpressionParser(std::string_view text, const TemplateVariables& variables)
      : text_(text), variables_(variables) {}

  Result<TemplateValue> ParseAll() {
    CHUNKWISE_ASSIGN_OR_RETURN(TemplateValue value, ParseSum(0));
    SkipSpace();
    if (at_ != text_.size())
      return Unsupported("unexpected '" + std::string(text_.substr(at_)) + "'");
    return value;
  }

 private:
  void SkipSpace() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool Take(std::string_view token) {
    SkipSpace();
    if (text_.substr(at_, token.size()) != token) return false;
    at_ += token.size();
    return true;
  }
  Status Invalid(const std::string& what) const {
    return Status::InvalidArgument("template expression \"" + std::string(text_) + "\": " + what);
  }
  Status Unsupported(const std::string& what) const {
    return Status::Unsupported("template expression \"" + std::string(text_) + "\": " + what +
                               " (only integer arithmetic, strings and variables are supported)");
  }

  Result<std::int64_t> Integer(const TemplateValue& value, std::string_view op) const {
    if (const auto* number = std::get_if<std::int64_t>(&value)) return *number;
    return Invalid("'" + std::string(op) + "' needs integers, got the string \"" +
                   std::get<std::string>(value) + "\"");
  }

  Result<TemplateValue> Apply(char op, const TemplateValue& left, const TemplateValue& right) {
    if (op == '~') return TemplateValue(AsText(left) + AsText(right));
    if (op == '+' && std::holds_alternative<std::string>(left) &&
        std::holds_alternative<std::string>(right)) {
      return TemplateValue(std::get<std::string>(left) + std::get<std::string>(right));
    }
    const std::string op_text(1, op == 'f' ? '/' : op);
    CHUNKWISE_ASSIGN_OR_RETURN(const std::int64_t a, Integer(left, op_text));
    CHUNKWISE_ASSIGN_OR_RETURN(const std::int64_t b, Integer(right, op_text));
    std::int64_t out = 0;
    bool overflow = false;
    if (op == '+') overflow = __builtin_add_overflow(a, b, &out);
    if (op == '-') overflow = __builtin_sub_overflow(a, b, &out);
    if (op == '*') overflow = __builtin_mul_overflow(a, b, &out);
    if (op == '/' || op == 'f' || op == '%') {
      if (b == 0) return Invalid("division by zero");
      if (a == INT64_MIN && b == -1) return Invalid("integer overflow");
      if (op == '/' && a % b != 0) {
        return Unsupported(std::to_string(a) + " / " + std::to_string(b) + " is not an integer");
      }
      // Python floors quotients and gives remainders the divisor's sign.
      std::int64_t quotient = a / b;
      std::int64_t remainder = a % b;
      if (remainder != 0 && ((remainder < 0) != (b < 0))) {
        --quotient;
        remainder += b;
      }
      out = op == '%' ? remainder : quotient;
    }
    if (overflow) return Invalid("integer overflow");
    return TemplateValue(out);
  }

  Result<TemplateValue> ParseSum(int depth) {
    CHUNKWISE_ASSIGN_OR_RETURN(TemplateValue value, ParseProduct(depth));
    while (true) {
      char op = 0;
      if (Take("+"))
        op = '+';
      else if (Take("-"))
        op = '-';
      else if (Take("~"))
        op = '~';
      else
        return value;
      CHUNKWISE_ASSIGN_OR_RETURN(TemplateValue right, ParseProduct(depth));
      CHUNKWISE_ASSIGN_OR_RETURN(value, Apply(op, value, right));
    }
  }

  Result<TemplateValue> ParseProduct(int depth) {
    CHUNKWISE_ASSIGN_OR_RETURN(TemplateValue value, ParseUnary(depth));
    while (true) {
      char op = 0;
      if (Take("**")) return Unsupported("'**'");
      if (Take("*"))
        op = '*';
      else if (Take("//"))
        op = 'f';
      else if (Take("/"))
        op = '/';
      else if (Take("%"))
        op = '%';
      else
        return value;
      CHUNKWISE_ASSIGN_OR_RETURN(TemplateValue right, ParseUnary(depth));
      CHUNKWISE_ASSIGN_OR_RETURN(value, Apply(op, value, right));
    }
  }

  Result<TemplateValue> ParseUnary(int depth) {
    if (depth > kMaxDepth) return Invalid("nests too deeply");
    if (Take("-")) {
      CHUNKWISE_ASSIGN_OR_RETURN(TemplateValue value, ParseUnary(depth + 1));
      return Apply('-', TemplateValue(std::int64_t{0}), value);
    }
    if (Take("+")) return ParseUnary(depth + 1);
    return ParsePrimary(depth);
  }

  Result<TemplateValue> ParsePrimary(int depth) {
    SkipSpace();
    if (Take("(")) {
      CHUNKWISE_ASSIGN_OR_RETURN(TemplateValue value, ParseSum(depth + 1));
      if (!Take(")")) return Invalid("missing ')'");
      return value;
    }
    if (at_ >= text_.size()) return Invalid("expected a value");
    const char c = text_[at_];
    if (c == '\'' || c == '"') {
      const std::size_t close = text_.find(c, at_ + 1);
      if (close == std::string_view::npos) return Invalid("unterminated string");
      std::string literal(text_.substr(at_ + 1, close - at_ - 1));
      if (literal.find('\\') != std::string::npos) return Unsupported("escapes in strings");
      at_ = close + 1;
      return TemplateValue(std::move(literal));
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return ParseNumber();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return ParseVariable();
    return Unsupported("unexpected '" + std::string(1, c) + "'");
  }

  Result<TemplateValue> ParseNumber() {
    std::int64_t value = 0;
    while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) {
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_add_overflow(value, text_[at_] - '0', &value)) {
        return Invalid("integer overflow");
      }
      ++at_;
    }
    if (at_ < text_.size() && (text_[at_] == '.' || text_[at_] == 'e')) {
      return Unsupported("floating-point numbers");
    }
    return TemplateValue(value);
  }

  Result<TemplateValue> ParseVariable() {
    const std::size_t start = at_;
    while (at_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_')) {
      ++at_;
    }
    const std::string_view name = text_.substr(start, at_ - start);
    SkipSpace();
    if (at_ < text_.size() &&
        (text_[at_] == '(' || text_[at_] == '.' || text_[at_] == '[' || text_[at_] == '|')) {
      return Unsupported("calls, attributes, subscripts and filters");
    }
    const auto found = variables_.find(name);
    if (found == variables_.end()) {
      return Invalid("unknown variable \"" + std::string(name) + "\"");
    }
    return found->second;
  }

  std::string_view text_;
  const TemplateVariables& variables_;
  std::size_t at_ = 0;
};

}  // namespace

Result<std::string> RenderTemplate(std::string_view text, const TemplateVariables& variables) {
  std::string out;
  std::size_t at = 0;
  while (true) {
    const std::size_t open = text.find("{{", at);
    if (open == std::string_view::npos) break;
    const std::size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) {
      return Status::InvalidArgument("template \"" + std::string(text) + "\" has an unclosed '{{'");
    }
    out.append(text.substr(at, open - at));
    ExpressionParser parser(text.substr(open + 2, close - open - 2), variables);
    CHUNKWISE_ASSIGN_OR_RETURN(const TemplateValue value, parser.ParseAll());
    out += AsText(value);
    at = close + 2;
  }
  if (text.find("{%", at) != std::string_view::npos ||
      text.find("{#", at) != std::string_view::npos) {
    return Status::Unsupported("template \"" + std::string(text) +
                               "\" uses jinja2 statements or comments");
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace chunkwise::formats::refs
