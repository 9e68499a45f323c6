// Predicate: a row filter over ctable columns, such as
// "(a > 10) & (b <= 2.5) | ~(name == 'x')".
//
// The grammar is a small subset of the numexpr expressions bcolz's
// ctable.where() takes: comparisons `column OP literal` (or `literal OP
// column`) with OP one of < <= > >= == !=, joined by `&` (and), `|` (or),
// `~` (not) and parentheses. Unlike Python, comparisons bind tighter than
// `&` and `|`, so "a > 1 & b < 2" means what it reads as. Literals are
// integers (decimal, or 0x/0o/0b), floats (with a '.', an exponent, inf or
// nan), True/False and quoted strings (for 'S' and 'U' columns).
//
// A comparison gives what numpy 2 gives for `column OP literal` with the
// literal a Python scalar (NEP 50), so a float32 column equals 0.9 where
// numpy says so:
//   - float column: the literal is rounded to the column's type (f2, f4, f8)
//     and compared there; an integer too large for a double is refused.
//   - integer or bool column, integer or bool literal: compared exactly, at
//     any magnitude (a bool column refuses integers outside int64, as numpy).
//   - integer or bool column, float literal: both as float64.
//   - datetime64/timedelta64 columns compare their int64 counts with an
//     integer literal (numpy refuses this for datetime64); floats are refused.
// Evaluation works on one block of rows at a time, so a whole column is
// never loaded. Thread-compatible.
#ifndef CHUNKWISE_FORMATS_BCOLZ_PREDICATE_H_
#define CHUNKWISE_FORMATS_BCOLZ_PREDICATE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/bytes.h"
#include "chunkwise/core/npy_dtype.h"
#include "chunkwise/core/result.h"

namespace chunkwise::formats::bcolz {

// One block of one column: `rows` elements of `dtype`, each `stride` bytes
// apart (the row size, which for an n-d column spans several elements).
struct ColumnBlock {
  core::NpyDtype dtype;
  ByteView data;
  std::size_t stride = 0;
};

class Predicate {
 public:
  // Parses `text`. InvalidArgument with the offset of the fault on a syntax
  // error.
  static Result<Predicate> Parse(std::string_view text);

  // The column names the predicate reads, sorted, without repeats.
  std::vector<std::string> columns() const;

  // Checks that every column exists in `dtypes` with a kind the predicate
  // can compare against its literal (numbers and bools against numbers,
  // strings against 'S'/'U'), and that the literal converts to the type the
  // comparison is done in. InvalidArgument naming the column otherwise.
  Status Check(const std::map<std::string, core::NpyDtype>& dtypes) const;

  // One byte per row, 1 where the predicate holds, for `rows` rows of the
  // given column blocks (the first element of each row is compared).
  // REQUIRES: Check() passed for these columns' dtypes; every block has rows.
  std::vector<std::uint8_t> Evaluate(const std::map<std::string, ColumnBlock>& blocks,
                                     std::size_t rows) const;

  // The parsed tree in a canonical form, e.g. "((a > 10) & (b == 'x'))".
  std::string ToString() const;

  enum class Op { kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kNotEqual };
  struct Literal {
    enum class Kind { kString, kBool, kInteger, kFloat } kind = Kind::kInteger;
    std::string text;  // kString: the value.
    // kBool and kInteger: the exact value as sign and magnitude; `huge` when
    // the magnitude does not fit 64 bits (then only the sign matters).
    bool negative = false;
    std::uint64_t magnitude = 0;
    bool huge = false;
    // The value as a Python float: correctly rounded; for kInteger,
    // `real_overflows` when that conversion overflows (Python raises).
    double real = 0;
    bool real_overflows = false;
    std::string source;  // As written, for ToString.
    bool is_string() const { return kind == Kind::kString; }
  };
  struct Node {
    enum class Kind { kCompare, kAnd, kOr, kNot } kind = Kind::kCompare;
    int left = -1, right = -1;  // Children (indices into nodes_); kNot uses left.
    std::string column;
    Op op = Op::kEqual;
    Literal literal;
  };

 private:
  void EvaluateNode(int index, const std::map<std::string, ColumnBlock>& blocks, std::size_t rows,
                    std::vector<std::uint8_t>& out) const;
  std::string NodeToString(int index) const;

  std::vector<Node> nodes_;
  int root_ = -1;
};

}  // namespace chunkwise::formats::bcolz

#endif  // CHUNKWISE_FORMATS_BCOLZ_PREDICATE_H_
