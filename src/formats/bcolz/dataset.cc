#include "formats/bcolz/dataset.h"

#include <algorithm>

#include "chunkwise/core/index.h"
#include "chunkwise/core/region.h"
#include "formats/bcolz/ctable.h"

namespace chunkwise::formats::bcolz {
namespace {

std::string CparamsText(const Carray& carray) {
  const Cparams& c = carray.cparams();
  return "cname " + c.cname + ", clevel " + std::to_string(c.clevel) + ", shuffle " +
         std::to_string(c.shuffle) + ", chunklen " + std::to_string(carray.chunklen());
}

Result<std::string> CarrayLine(Carray& carray) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::uint64_t cbytes, carray.CompressedBytes());
  const std::uint64_t nbytes = static_cast<std::uint64_t>(carray.length()) * carray.atomsize();
  return "shape (" + core::FormatShape(carray.shape()) + "), dtype " +
         DtypeToString(carray.dtype()) + ", " + CparamsText(carray) + ", " +
         std::to_string(carray.chunk_count()) + " chunk files, nbytes " + std::to_string(nbytes) +
         ", compressed " + std::to_string(cbytes) + " in full chunks";
}

Result<nlohmann::ordered_json> CarrayJson(Carray& carray) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::uint64_t cbytes, carray.CompressedBytes());
  const Cparams& c = carray.cparams();
  nlohmann::ordered_json out;
  out["shape"] = carray.shape();
  out["dtype"] = DtypeToString(carray.dtype());
  out["cparams"] = {{"cname", c.cname}, {"clevel", c.clevel}, {"shuffle", c.shuffle}};
  out["chunklen"] = carray.chunklen();
  out["chunk_files"] = carray.chunk_count();
  out["nbytes"] = static_cast<std::uint64_t>(carray.length()) * carray.atomsize();
  out["cbytes_full_chunks"] = cbytes;
  return out;
}

// Rows some columns hold past the table's length: what an append cut short
// between columns left (docs/formats/bcolz.md, "Crash safety"). Reads see
// only the rows every column holds, so a describe says what they do not.
std::int64_t RowsPastLength(Ctable& table) {
  std::int64_t longest = table.length();
  for (std::size_t i = 0; i < table.names().size(); ++i) {
    longest = std::max(longest, table.column(i).length());
  }
  return longest - table.length();
}

}  // namespace

Result<nlohmann::ordered_json> DescribeDatasetJson(std::shared_ptr<store::Store> store,
                                                   const std::string& prefix) {
  CHUNKWISE_ASSIGN_OR_RETURN(bool is_ctable, Ctable::IsCtable(*store, prefix));
  nlohmann::ordered_json out;
  if (!is_ctable) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<Carray> carray,
                               Carray::Open(std::move(store), prefix, Mode::kRead));
    CHUNKWISE_ASSIGN_OR_RETURN(nlohmann::ordered_json fields, CarrayJson(*carray));
    out["kind"] = "carray";
    out["length"] = carray->length();
    out.update(fields);
    out["attrs"] = carray->attrs();
    return out;
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<Ctable> table,
                             Ctable::Open(std::move(store), prefix, Mode::kRead));
  out["kind"] = "ctable";
  out["length"] = table->length();
  nlohmann::ordered_json columns = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < table->names().size(); ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(columns[table->names()[i]], CarrayJson(table->column(i)));
  }
  out["columns"] = std::move(columns);
  out["rows_past_length"] = RowsPastLength(*table);
  out["attrs"] = table->attrs();
  return out;
}

Result<std::pair<std::int64_t, std::int64_t>> ParseRowSlice(std::string_view slice,
                                                            std::int64_t length) {
  const std::vector<core::Index> shape = {length};
  CHUNKWISE_ASSIGN_OR_RETURN(core::Region region, core::ParseRegion(slice, shape));
  return std::pair{region.start()[0], region.stop()[0]};
}

namespace {

// The reporter the request asks for, and the hooks that go with it.
struct SelectionHooks {
  std::unique_ptr<core::ProgressReporter> reporter;
  CallHooks hooks;
};

SelectionHooks HooksFor(const ReadRequest& request, std::uint64_t total_bytes) {
  SelectionHooks made;
  if (request.progress) made.reporter = request.progress(total_bytes);
  made.hooks = {made.reporter.get(), request.cancellation};
  return made;
}

template <typename T>
Result<T> Finished(Result<T> result, const SelectionHooks& made) {
  if (result.ok() && made.reporter != nullptr) made.reporter->Finish();
  return result;
}

}  // namespace

Result<core::NpyArray> ReadSelection(std::shared_ptr<store::Store> store, const std::string& prefix,
                                     const ReadRequest& request) {
  CHUNKWISE_ASSIGN_OR_RETURN(bool is_ctable, Ctable::IsCtable(*store, prefix));
  if (is_ctable) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<Ctable> table,
                               Ctable::Open(std::move(store), prefix, Mode::kRead));
    CHUNKWISE_ASSIGN_OR_RETURN(auto range, ParseRowSlice(request.slice, table->length()));
    CHUNKWISE_ASSIGN_OR_RETURN(const core::NpyDtype rows, table->RowDtype(request.columns));
    const SelectionHooks made =
        HooksFor(request, static_cast<std::uint64_t>(range.second - range.first) * rows.itemsize());
    table->set_hooks(made.hooks);
    if (request.where.empty()) {
      return Finished(table->Read(range.first, range.second, request.columns), made);
    }
    CHUNKWISE_ASSIGN_OR_RETURN(Predicate predicate, Predicate::Parse(request.where));
    return Finished(table->Where(predicate, request.columns, range.first, range.second), made);
  }
  if (!request.columns.empty() || !request.where.empty()) {
    return Status::InvalidArgument(
               "a column selection or a where predicate needs a ctable; this is a carray")
        .WithField("columns");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<Carray> carray,
                             Carray::Open(std::move(store), prefix, Mode::kRead));
  CHUNKWISE_ASSIGN_OR_RETURN(auto range, ParseRowSlice(request.slice, carray->length()));
  core::NpyArray array;
  array.dtype = carray->dtype();
  array.shape = carray->shape();
  array.shape[0] = range.second - range.first;
  const SelectionHooks made = HooksFor(
      request, static_cast<std::uint64_t>(range.second - range.first) * carray->atomsize());
  carray->set_hooks(made.hooks);
  CHUNKWISE_ASSIGN_OR_RETURN(array.data, Finished(carray->Read(range.first, range.second), made));
  return array;
}

Result<std::string> DescribeDataset(std::shared_ptr<store::Store> store,
                                    const std::string& prefix) {
  CHUNKWISE_ASSIGN_OR_RETURN(bool is_ctable, Ctable::IsCtable(*store, prefix));
  if (!is_ctable) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<Carray> carray,
                               Carray::Open(std::move(store), prefix, Mode::kRead));
    CHUNKWISE_ASSIGN_OR_RETURN(std::string line, CarrayLine(*carray));
    return "bcolz carray: " + line + "\nattrs: " + carray->attrs().dump() + "\n";
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<Ctable> table,
                             Ctable::Open(std::move(store), prefix, Mode::kRead));
  std::string text = "bcolz ctable: " + std::to_string(table->length()) + " rows, " +
                     std::to_string(table->names().size()) + " columns\n";
  for (std::size_t i = 0; i < table->names().size(); ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::string line, CarrayLine(table->column(i)));
    text += "  " + table->names()[i] + ": " + line + "\n";
  }
  if (const std::int64_t past = RowsPastLength(*table); past > 0) {
    text += "note: some columns hold up to " + std::to_string(past) + " rows past the " +
            std::to_string(table->length()) +
            " all columns hold (an append cut short); reads see those " +
            std::to_string(table->length()) + ", and the next append drops the rest\n";
  }
  return text + "attrs: " + table->attrs().dump() + "\n";
}

}  // namespace chunkwise::formats::bcolz
