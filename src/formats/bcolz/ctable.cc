#include "formats/bcolz/ctable.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <thread>

namespace chunkwise::formats::bcolz {
namespace {

std::string ColumnPrefix(const std::string& prefix, std::string_view name) {
  return prefix + std::string(name) + "/";
}

// Copies `rows` rows of `size` bytes from `source` (stride `from`) to `dest` (stride `to`).
void CopyStrided(const std::uint8_t* source, std::size_t from, std::uint8_t* dest, std::size_t to,
                 std::size_t size, std::size_t rows) {
  for (std::size_t r = 0; r < rows; ++r) std::memcpy(dest + r * to, source + r * from, size);
}

}  // namespace

Ctable::Ctable(std::shared_ptr<store::Store> store, std::string prefix, Mode mode)
    : store_(std::move(store)), prefix_(std::move(prefix)), mode_(mode) {}

Result<bool> Ctable::IsCtable(const store::Store& store, const std::string& prefix) {
  return store.Exists(prefix + "__rootdirs__");
}

Result<std::vector<ColumnSpec>> Ctable::ColumnsFor(const core::NpyDtype& row_dtype,
                                                   const CarrayOptions& base) {
  if (!row_dtype.is_structured()) {
    return Status::InvalidArgument("a ctable needs a structured row dtype, got " +
                                   row_dtype.ToDescr());
  }
  std::vector<ColumnSpec> columns;
  for (const core::NpyField& field : row_dtype.fields()) {
    if (field.name.empty()) continue;  // Padding.
    ColumnSpec spec{field.name, base};
    spec.options.dtype = field.dtype;
    spec.options.atom_shape = field.shape;
    spec.options.dflt = nullptr;
    columns.push_back(std::move(spec));
  }
  if (columns.empty()) return Status::InvalidArgument("the row dtype has no named fields");
  return columns;
}

Status Ctable::CheckWritable() const {
  if (mode_ == Mode::kRead) {
    return Status::InvalidArgument(store_->Describe(prefix_) + ": ctable is open read-only");
  }
  return Status::Ok();
}

Status Ctable::WriteRootdirs() {
  return store_->Set(prefix_ + "__rootdirs__", AsBytes(SerializeRootdirs(names_)));
}

Result<std::unique_ptr<Ctable>> Ctable::Create(std::shared_ptr<store::Store> store,
                                               std::string prefix,
                                               const std::vector<ColumnSpec>& columns) {
  if (columns.empty()) return Status::InvalidArgument("a ctable needs at least one column");
  std::set<std::string> seen;
  for (const ColumnSpec& spec : columns) {
    CHUNKWISE_RETURN_IF_ERROR(CheckColumnName(spec.name));
    if (!seen.insert(spec.name).second) {
      return Status::InvalidArgument("column \"" + spec.name + "\" occurs twice");
    }
  }
  std::unique_ptr<Ctable> table(new Ctable(std::move(store), std::move(prefix), Mode::kAppend));
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> old_keys,
                             table->store_->List(table->prefix_));
  for (const std::string& key : old_keys) CHUNKWISE_RETURN_IF_ERROR(table->store_->Erase(key));
  for (ColumnSpec spec : columns) {
    // Columns compress one after another, so they can share one pool.
    if (!spec.options.pool) spec.options.pool = table->CompressionPool(spec.options.threads);
    CHUNKWISE_ASSIGN_OR_RETURN(
        std::unique_ptr<Carray> column,
        Carray::Create(table->store_, ColumnPrefix(table->prefix_, spec.name), spec.options));
    table->names_.push_back(spec.name);
    table->columns_.push_back(std::move(column));
  }
  CHUNKWISE_RETURN_IF_ERROR(
      table->store_->Set(table->prefix_ + "__attrs__", AsBytes(SerializeAttrs(table->attrs_))));
  CHUNKWISE_RETURN_IF_ERROR(table->WriteRootdirs());
  return table;
}

Result<std::unique_ptr<Ctable>> Ctable::Open(std::shared_ptr<store::Store> store,
                                             std::string prefix, Mode mode, int threads) {
  std::unique_ptr<Ctable> table(new Ctable(std::move(store), std::move(prefix), mode));
  const std::string rootdirs_key = table->prefix_ + "__rootdirs__";
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> rootdirs, table->store_->Get(rootdirs_key));
  if (!rootdirs) {
    return Status::NotFound(table->store_->Describe(rootdirs_key) + ": missing; not a ctable");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(
      table->names_, ParseRootdirs(AsChars(*rootdirs), table->store_->Describe(rootdirs_key)));
  if (table->names_.empty()) {
    return Status::Corruption(table->store_->Describe(rootdirs_key) + ": lists no columns");
  }
  for (const std::string& name : table->names_) {
    CHUNKWISE_ASSIGN_OR_RETURN(
        std::unique_ptr<Carray> column,
        Carray::Open(table->store_, ColumnPrefix(table->prefix_, name), mode, threads,
                     mode == Mode::kRead ? nullptr : table->CompressionPool(threads)));
    table->columns_.push_back(std::move(column));
  }
  table->length_ = table->columns_[0]->length();
  for (const auto& column : table->columns_) {
    table->length_ = std::min(table->length_, column->length());
  }
  if (mode != Mode::kRead) {
    // A crash between columns' writes leaves some longer; keep the common rows.
    for (const auto& column : table->columns_) {
      if (column->length() > table->length_) {
        CHUNKWISE_RETURN_IF_ERROR(column->Trim(column->length() - table->length_));
      }
    }
  }
  const std::string attrs_key = table->prefix_ + "__attrs__";
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> attrs, table->store_->Get(attrs_key));
  if (attrs) {
    CHUNKWISE_ASSIGN_OR_RETURN(table->attrs_,
                               ParseAttrs(AsChars(*attrs), table->store_->Describe(attrs_key)));
  }
  return table;
}

Result<Carray*> Ctable::column(std::string_view name) {
  const auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) {
    return Status::NotFound(store_->Describe(prefix_) + ": no column \"" + std::string(name) +
                            "\"");
  }
  return columns_[static_cast<std::size_t>(it - names_.begin())].get();
}

Result<std::vector<std::size_t>> Ctable::Indices(const std::vector<std::string>& names) const {
  std::vector<std::size_t> indices;
  if (names.empty()) {
    for (std::size_t i = 0; i < names_.size(); ++i) indices.push_back(i);
    return indices;
  }
  for (const std::string& name : names) {
    const auto it = std::find(names_.begin(), names_.end(), name);
    if (it == names_.end()) {
      return Status::NotFound(store_->Describe(prefix_) + ": no column \"" + name + "\"");
    }
    indices.push_back(static_cast<std::size_t>(it - names_.begin()));
  }
  return indices;
}

Result<core::NpyDtype> Ctable::RowDtype(const std::vector<std::string>& names) const {
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::size_t> indices, Indices(names));
  std::vector<core::NpyField> fields;
  for (std::size_t i : indices) {
    core::NpyField field;
    field.name = names_[i];
    field.dtype = columns_[i]->dtype();
    field.shape = columns_[i]->atom_shape();
    fields.push_back(std::move(field));
  }
  return core::NpyDtype::Structured(std::move(fields));
}

Status Ctable::Append(const core::NpyDtype& row_dtype, ByteView rows) {
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable());
  if (!row_dtype.is_structured() || rows.size() % row_dtype.itemsize() != 0) {
    return Status::InvalidArgument("ctable rows must be whole structured rows");
  }
  const std::size_t count = rows.size() / row_dtype.itemsize();
  std::vector<const core::NpyField*> fields;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    const auto& all = row_dtype.fields();
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&](const core::NpyField& f) { return f.name == names_[i]; });
    if (it == all.end() || !(it->dtype == columns_[i]->dtype()) ||
        it->shape != columns_[i]->atom_shape()) {
      return Status::InvalidArgument("rows of dtype " + row_dtype.ToDescr() +
                                     " have no field matching column \"" + names_[i] + "\"");
    }
    fields.push_back(&*it);
  }
  const std::size_t itemsize = row_dtype.itemsize();
  if (hooks_.progress == nullptr && hooks_.cancellation == nullptr) {
    return AppendBatch(fields, itemsize, rows);
  }
  // A batch fills a chunk of every column for each thread (the longest chunk).
  std::int64_t chunklen = 1;
  for (const auto& carray : columns_) chunklen = std::max(chunklen, carray->chunklen());
  const std::size_t batch =
      static_cast<std::size_t>(chunklen) * std::max(1U, std::thread::hardware_concurrency());
  for (std::size_t row = 0; row < count; row += batch) {
    if (hooks_.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(
          hooks_.cancellation->Check("appending to " + store_->Describe(prefix_)));
    }
    const std::size_t n = std::min(batch, count - row);
    CHUNKWISE_RETURN_IF_ERROR(
        AppendBatch(fields, itemsize, rows.subspan(row * itemsize, n * itemsize)));
    if (hooks_.progress != nullptr) hooks_.progress->Add(n * itemsize);
  }
  return Status::Ok();
}

Status Ctable::AppendBatch(const std::vector<const core::NpyField*>& fields, std::size_t itemsize,
                           ByteView rows) {
  const std::size_t count = rows.size() / itemsize;
  Bytes values;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    const std::size_t atomsize = columns_[i]->atomsize();
    values.resize(count * atomsize);
    CopyStrided(rows.data() + fields[i]->offset, itemsize, values.data(), atomsize, atomsize,
                count);
    CHUNKWISE_RETURN_IF_ERROR(columns_[i]->Append(values));
  }
  length_ += static_cast<std::int64_t>(count);
  return Status::Ok();
}

Result<core::NpyArray> Ctable::Read(std::int64_t start, std::int64_t stop,
                                    const std::vector<std::string>& names) {
  if (start < 0 || stop < start || stop > length_) {
    return Status::OutOfRange("rows [" + std::to_string(start) + ", " + std::to_string(stop) +
                              ") outside the " + std::to_string(length_) + " rows of " +
                              store_->Describe(prefix_));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::size_t> indices, Indices(names));
  core::NpyArray array;
  CHUNKWISE_ASSIGN_OR_RETURN(array.dtype, RowDtype(names));
  const auto rows = static_cast<std::size_t>(stop - start);
  array.shape = {stop - start};
  array.data.resize(rows * array.dtype.itemsize());
  for (std::size_t k = 0; k < indices.size(); ++k) {
    Carray& carray = *columns_[indices[k]];
    carray.set_hooks(hooks_);  // Read only: a column cancelled part-way changes nothing.
    Result<Bytes> read = carray.Read(start, stop);
    carray.set_hooks({});
    CHUNKWISE_ASSIGN_OR_RETURN(Bytes values, std::move(read));
    CopyStrided(values.data(), carray.atomsize(),
                array.data.data() + array.dtype.fields()[k].offset, array.dtype.itemsize(),
                carray.atomsize(), rows);
  }
  return array;
}

Result<core::NpyArray> Ctable::Where(const Predicate& predicate,
                                     const std::vector<std::string>& names, std::int64_t start,
                                     std::int64_t stop) {
  std::map<std::string, core::NpyDtype> dtypes;
  for (std::size_t i = 0; i < names_.size(); ++i) dtypes[names_[i]] = columns_[i]->dtype();
  CHUNKWISE_RETURN_IF_ERROR(predicate.Check(dtypes));
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::size_t> indices, Indices(names));
  core::NpyArray array;
  CHUNKWISE_ASSIGN_OR_RETURN(array.dtype, RowDtype(names));
  array.shape = {0};
  if (start < 0 || stop < start || stop > length_) return Read(start, stop, names).status();
  const std::vector<std::string> used = predicate.columns();
  CHUNKWISE_ASSIGN_OR_RETURN(Carray * first, column(used.empty() ? names_[0] : used[0]));
  const std::int64_t block = first->chunklen();
  for (std::int64_t row = start; row < stop;) {
    // Blocks follow the first predicate column's chunks, so each read touches one chunk.
    const std::int64_t end = std::min(stop, (row / block + 1) * block);
    if (hooks_.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(hooks_.cancellation->Check("reading " + store_->Describe(prefix_)));
    }
    CHUNKWISE_RETURN_IF_ERROR(WhereBlock(predicate, indices, row, end, array));
    if (hooks_.progress != nullptr) {
      hooks_.progress->Add(static_cast<std::uint64_t>(end - row) * array.dtype.itemsize());
    }
    row = end;
  }
  return array;
}

Status Ctable::WhereBlock(const Predicate& predicate, const std::vector<std::size_t>& indices,
                          std::int64_t row, std::int64_t end, core::NpyArray& out) {
  const auto rows = static_cast<std::size_t>(end - row);
  std::map<std::string, Bytes> read;
  std::map<std::string, ColumnBlock> blocks;
  for (const std::string& name : predicate.columns()) {
    CHUNKWISE_ASSIGN_OR_RETURN(Carray * carray, column(name));
    CHUNKWISE_ASSIGN_OR_RETURN(read[name], carray->Read(row, end));
    blocks[name] = {carray->dtype(), read[name], carray->atomsize()};
  }
  const std::vector<std::uint8_t> mask = predicate.Evaluate(blocks, rows);
  const auto hits = static_cast<std::size_t>(std::count(mask.begin(), mask.end(), 1));
  if (hits == 0) return Status::Ok();
  const std::size_t itemsize = out.dtype.itemsize();
  const auto matches = static_cast<std::size_t>(out.shape[0]);
  out.data.resize((matches + hits) * itemsize);
  for (std::size_t k = 0; k < indices.size(); ++k) {
    Carray& carray = *columns_[indices[k]];
    const std::string& name = names_[indices[k]];
    if (!read.contains(name)) {  // Selected but not in the predicate: read only now.
      CHUNKWISE_ASSIGN_OR_RETURN(read[name], carray.Read(row, end));
    }
    const Bytes& values = read[name];
    std::uint8_t* dest = out.data.data() + matches * itemsize + out.dtype.fields()[k].offset;
    for (std::size_t r = 0; r < rows; ++r) {
      if (mask[r] == 0) continue;
      std::memcpy(dest, values.data() + r * carray.atomsize(), carray.atomsize());
      dest += itemsize;
    }
  }
  out.shape[0] = static_cast<std::int64_t>(matches + hits);
  return Status::Ok();
}

std::shared_ptr<core::ThreadPool> Ctable::CompressionPool(int threads) {
  if (!pool_) pool_ = MakeCompressionPool(threads);
  return pool_;
}

Status Ctable::AddColumn(const ColumnSpec& spec, ByteView values) {
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable());
  CHUNKWISE_RETURN_IF_ERROR(CheckColumnName(spec.name));
  if (std::find(names_.begin(), names_.end(), spec.name) != names_.end()) {
    return Status::InvalidArgument("column \"" + spec.name + "\" exists already");
  }
  CarrayOptions options = spec.options;
  if (!options.pool) options.pool = CompressionPool(options.threads);
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<Carray> carray,
                             Carray::Create(store_, ColumnPrefix(prefix_, spec.name), options));
  if (values.size() != static_cast<std::uint64_t>(length_) * carray->atomsize()) {
    return Status::InvalidArgument("new column \"" + spec.name + "\" needs " +
                                   std::to_string(length_) + " rows");
  }
  CHUNKWISE_RETURN_IF_ERROR(carray->Append(values));
  CHUNKWISE_RETURN_IF_ERROR(carray->Flush());
  names_.push_back(spec.name);
  columns_.push_back(std::move(carray));
  return WriteRootdirs();  // Last: the column exists only once complete.
}

Status Ctable::RemoveColumn(std::string_view name) {
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable());
  const auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) return Status::NotFound("no column \"" + std::string(name) + "\"");
  if (names_.size() == 1) return Status::InvalidArgument("cannot remove the last column");
  const auto index = static_cast<std::size_t>(it - names_.begin());
  const std::string column_prefix = ColumnPrefix(prefix_, name);
  names_.erase(it);
  columns_.erase(columns_.begin() + static_cast<std::ptrdiff_t>(index));
  CHUNKWISE_RETURN_IF_ERROR(WriteRootdirs());  // First: a crash leaves only unlisted files.
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> keys, store_->List(column_prefix));
  for (const std::string& key : keys) CHUNKWISE_RETURN_IF_ERROR(store_->Erase(key));
  return Status::Ok();
}

Status Ctable::Flush() {
  for (const auto& column : columns_) CHUNKWISE_RETURN_IF_ERROR(column->Flush());
  return Status::Ok();
}

Status Ctable::SetAttr(const std::string& name, nlohmann::json value) {
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable());
  attrs_[name] = std::move(value);
  return store_->Set(prefix_ + "__attrs__", AsBytes(SerializeAttrs(attrs_)));
}

}  // namespace chunkwise::formats::bcolz
