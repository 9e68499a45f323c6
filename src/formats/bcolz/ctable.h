// Ctable: a bcolz 1.x persistent ctable, as a view over a Store.
//
// Spec: docs/formats/bcolz.md, "ctable directory".
// A ctable under `prefix` is __rootdirs__ ({"names": [...]}, the column
// order), __attrs__, and one complete carray per column directly under the
// root (prefix + name + "/"). Rows are read and written as structured
// arrays whose fields are columns; an n-d column is a sub-array field.
// Columns are written one after another, so a crash can leave them with
// different lengths; Open takes the shortest (the rows every column holds)
// and, in a writable mode, trims the others to it.
//
// Not thread-safe: one thread writes a Ctable.
#ifndef CHUNKWISE_FORMATS_BCOLZ_CTABLE_H_
#define CHUNKWISE_FORMATS_BCOLZ_CTABLE_H_

#include <memory>
#include <string>
#include <vector>

#include "chunkwise/core/npy.h"
#include "formats/bcolz/carray.h"
#include "formats/bcolz/predicate.h"

namespace chunkwise::formats::bcolz {

struct ColumnSpec {
  std::string name;
  CarrayOptions options;
};

class Ctable {
 public:
  // True when `prefix` holds a ctable (its __rootdirs__ exists).
  static Result<bool> IsCtable(const store::Store& store, const std::string& prefix);
  // The column specs of a structured dtype's fields (padding skipped), each
  // with `base`'s cparams, chunklen, expectedlen and threads.
  static Result<std::vector<ColumnSpec>> ColumnsFor(const core::NpyDtype& row_dtype,
                                                    const CarrayOptions& base);

  // Creates an empty ctable, erasing every key under `prefix` first.
  // InvalidArgument for no columns, a bad or repeated name, or bad options.
  static Result<std::unique_ptr<Ctable>> Create(std::shared_ptr<store::Store> store,
                                                std::string prefix,
                                                const std::vector<ColumnSpec>& columns);
  // Opens a ctable; errors as Carray::Open, naming the column's files, and
  // NotFound naming __rootdirs__ when it is missing. kWrite truncates.
  static Result<std::unique_ptr<Ctable>> Open(std::shared_ptr<store::Store> store,
                                              std::string prefix, Mode mode, int threads = 0);

  const std::vector<std::string>& names() const { return names_; }
  std::int64_t length() const { return length_; }
  Mode mode() const { return mode_; }
  // The column named `name`; NotFound if there is none.
  Result<Carray*> column(std::string_view name);
  Carray& column(std::size_t index) { return *columns_[index]; }

  // The structured row dtype of `names` (all columns when empty);
  // NotFound for an unknown name.
  Result<core::NpyDtype> RowDtype(const std::vector<std::string>& names) const;

  // The hooks of the calls that follow (Append, Read, Where); {} for none.
  // Progress counts bytes of rows of the (selected) columns.
  void set_hooks(const CallHooks& hooks) { hooks_ = hooks; }

  // Appends rows given as a structured array of `row_dtype`, which must have
  // a field for every column with the column's dtype and row shape (extra
  // fields are ignored). InvalidArgument otherwise. With hooks, in batches
  // of rows appended to every column: Cancelled between batches leaves the
  // columns of equal length, holding the batches done.
  Status Append(const core::NpyDtype& row_dtype, ByteView rows);
  // Rows [start, stop) of the named columns (all when empty) as a
  // structured C-order array. OutOfRange outside [0, length].
  Result<core::NpyArray> Read(std::int64_t start, std::int64_t stop,
                              const std::vector<std::string>& names);
  // The rows of [start, stop) where `predicate` holds, of the named
  // columns. Works one chunk of rows at a time: the predicate's columns are
  // read for every chunk, the other selected columns only for chunks with a
  // match; no column is ever loaded whole. InvalidArgument when the predicate
  // names a missing column or compares a column with the wrong literal.
  Result<core::NpyArray> Where(const Predicate& predicate, const std::vector<std::string>& names,
                               std::int64_t start, std::int64_t stop);

  // Adds a column holding `values` (length() rows of its dtype), last in
  // column order. InvalidArgument for a repeated or bad name or a length
  // mismatch.
  Status AddColumn(const ColumnSpec& spec, ByteView values);
  // Removes a column and its files; NotFound if absent; InvalidArgument for
  // the last column.
  Status RemoveColumn(std::string_view name);

  // Flushes every column.
  Status Flush();

  const nlohmann::json& attrs() const { return attrs_; }
  Status SetAttr(const std::string& name, nlohmann::json value);

 private:
  Ctable(std::shared_ptr<store::Store> store, std::string prefix, Mode mode);
  Status WriteRootdirs();
  Status CheckWritable() const;
  // Append of checked rows to every column, in one go.
  Status AppendBatch(const std::vector<const core::NpyField*>& fields, std::size_t itemsize,
                     ByteView rows);
  // The pool every column compresses on, made on first call for `threads`.
  std::shared_ptr<core::ThreadPool> CompressionPool(int threads);
  Result<std::vector<std::size_t>> Indices(const std::vector<std::string>& names) const;
  // Appends the rows of [row, end) that match to `out` (whose shape[0] counts them).
  Status WhereBlock(const Predicate& predicate, const std::vector<std::size_t>& indices,
                    std::int64_t row, std::int64_t end, core::NpyArray& out);

  std::shared_ptr<store::Store> store_;
  std::string prefix_;
  Mode mode_;
  std::vector<std::string> names_;
  std::shared_ptr<core::ThreadPool> pool_;  // Before columns_: they use it.
  std::vector<std::unique_ptr<Carray>> columns_;
  CallHooks hooks_;
  std::int64_t length_ = 0;
  nlohmann::json attrs_ = nlohmann::json::object();
};

}  // namespace chunkwise::formats::bcolz

#endif  // CHUNKWISE_FORMATS_BCOLZ_CTABLE_H_
