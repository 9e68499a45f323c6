#include "store/http_request.h"

#include <algorithm>
#include <charconv>

namespace chunkwise::store {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) {
      return Status::InvalidArgument("http: a '%' escape is cut short");
    }
    const int high = HexValue(text[i + 1]);
    const int low = HexValue(text[i + 2]);
    if (high < 0 || low < 0) return Status::InvalidArgument("http: a bad '%' escape");
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  if (out.find('\0') != std::string::npos) {
    return Status::InvalidArgument("http: a NUL in the path");
  }
  return out;
}

std::optional<std::uint64_t> ParseDecimal(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::string_view> HttpRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return std::string_view(value);
  }
  return std::nullopt;
}

bool HttpRequest::KeepAlive() const {
  const std::optional<std::string_view> connection = Header("connection");
  const std::string value = connection.has_value() ? Lower(*connection) : "";
  if (minor_version == 0) return value == "keep-alive";
  return value != "close";
}

std::size_t HttpHeadLength(std::string_view data) {
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] != '\n') continue;
    if (i + 1 < data.size() && data[i + 1] == '\n') return i + 2;
    if (i + 2 < data.size() && data[i + 1] == '\r' && data[i + 2] == '\n') return i + 3;
  }
  return 0;
}

Result<HttpRequest> ParseHttpRequestHead(std::string_view head) {
  HttpRequest request;
  std::size_t line_end = head.find('\n');
  if (line_end == std::string_view::npos) {
    return Status::InvalidArgument("http: no request line");
  }
  const std::string_view line = Trim(head.substr(0, line_end));
  const std::size_t first_space = line.find(' ');
  const std::size_t last_space = line.rfind(' ');
  if (first_space == std::string_view::npos || first_space == last_space || first_space == 0) {
    return Status::InvalidArgument("http: a malformed request line");
  }
  request.method = std::string(line.substr(0, first_space));
  const std::string_view target = line.substr(first_space + 1, last_space - first_space - 1);
  const std::string_view version = line.substr(last_space + 1);
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    return Status::InvalidArgument("http: version " + std::string(version.substr(0, 16)) +
                                   " (HTTP/1.0 or 1.1)");
  }
  request.minor_version = version.back() - '0';
  if (target.empty() || target.front() != '/') {
    return Status::InvalidArgument("http: the target must be a path starting with '/'");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(request.path, PercentDecode(target.substr(0, target.find('?'))));
  std::string_view rest = head.substr(line_end + 1);
  while (!rest.empty()) {
    line_end = rest.find('\n');
    const std::string_view header_line = rest.substr(0, line_end);
    rest = line_end == std::string_view::npos ? std::string_view() : rest.substr(line_end + 1);
    if (Trim(header_line).empty()) break;
    const std::size_t colon = header_line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      return Status::InvalidArgument("http: a header line without a name and colon");
    }
    request.headers.emplace_back(Lower(Trim(header_line.substr(0, colon))),
                                 std::string(Trim(header_line.substr(colon + 1))));
  }
  return request;
}

RangeOutcome ParseHttpRange(std::string_view header, std::uint64_t size, HttpByteRange* range) {
  header = Trim(header);
  constexpr std::string_view kUnit = "bytes=";
  if (header.size() < kUnit.size() || Lower(header.substr(0, kUnit.size())) != kUnit) {
    return RangeOutcome::kWhole;
  }
  const std::string_view spec = Trim(header.substr(kUnit.size()));
  const std::size_t dash = spec.find('-');
  if (dash == std::string_view::npos || spec.find(',') != std::string_view::npos) {
    return RangeOutcome::kWhole;
  }
  const std::string_view first_text = Trim(spec.substr(0, dash));
  const std::string_view last_text = Trim(spec.substr(dash + 1));
  if (first_text.empty()) {  // A suffix: the last N bytes.
    const std::optional<std::uint64_t> suffix = ParseDecimal(last_text);
    if (!suffix.has_value()) return RangeOutcome::kWhole;
    if (*suffix == 0 || size == 0) return RangeOutcome::kUnsatisfiable;
    *range = {size - std::min(*suffix, size), size - 1};
    return RangeOutcome::kPartial;
  }
  const std::optional<std::uint64_t> first = ParseDecimal(first_text);
  if (!first.has_value()) return RangeOutcome::kWhole;
  std::uint64_t last = size == 0 ? 0 : size - 1;
  if (!last_text.empty()) {
    const std::optional<std::uint64_t> parsed = ParseDecimal(last_text);
    if (!parsed.has_value() || *parsed < *first) return RangeOutcome::kWhole;
    last = std::min(last, *parsed);
  }
  if (*first >= size) return RangeOutcome::kUnsatisfiable;
  *range = {*first, last};
  return RangeOutcome::kPartial;
}

}  // namespace chunkwise::store
