#include "chunkwise/facade/zarr_import.h"

#include <filesystem>

#include "facade/new_output_directory.h"
#include "facade/zarr_array_access.h"
#include "facade/zarr_array_options.h"
#include "io/zarr_array_files.h"

namespace chunkwise {
namespace {

Result<ZarrArray> ImportNpy(const Context& context, std::string_view npy_path, std::string_view url,
                            const ZarrArraySpec& spec, const ZarrImportOptions& options,
                            const CallOptions& call) {
  CHUNKWISE_ASSIGN_OR_RETURN(const formats::zarr::ArrayLayout layout, internal::LayoutOf(spec));
  CHUNKWISE_ASSIGN_OR_RETURN(std::shared_ptr<store::Store> store,
                             OpenStore(context, url, context.store_options(true)));
  CHUNKWISE_ASSIGN_OR_RETURN(
      formats::zarr::ArrayOptions array_options,
      internal::ArrayOptionsOf(context, *store, layout.codec, options.encoders, call));
  const std::filesystem::path input(npy_path);
  std::error_code error;  // An unreadable input is reported by the import itself.
  std::uint64_t input_bytes = std::filesystem::file_size(input, error);
  if (error) input_bytes = 0;
  const bool first_rank = options.ranks == nullptr || options.ranks->rank() == 0;
  const std::uint64_t ranks = options.ranks == nullptr ? 1 : options.ranks->size();
  CallOptions watched = call;
  if (!first_rank) watched.progress_mode = core::ProgressMode::kQuiet;
  if (!first_rank) watched.observer = nullptr;
  std::unique_ptr<core::ProgressReporter> progress =
      context.StartProgress(watched, "zarr import", input_bytes / ranks, "B");
  array_options.progress = progress.get();
  const core::Cancellation& cancellation = context.cancellation(call);
  Result<formats::zarr::Array> array = io::ImportNpyAsNewArray(
      input, layout, std::move(store), "", options.overwrite, std::move(array_options),
      {.ranks = options.ranks,
       .resume = options.resume,
       .before_box = [&cancellation, &options](const std::string& key) {
         CHUNKWISE_RETURN_IF_ERROR(cancellation.Check("importing, before " + key));
         return options.before_box ? options.before_box(key) : Status::Ok();
       }});
  if (!array.ok()) return array.status();
  progress->Finish();
  array->set_progress(nullptr);  // The reporter ends here; the array lives on.
  return ZarrArrayAccess::Wrap(*std::move(array));
}

}  // namespace

Result<ZarrArray> ImportNpyAsZarrArray(const Context& context, std::string_view npy_path,
                                       std::string_view url, const ZarrArraySpec& spec,
                                       const ZarrImportOptions& options, const CallOptions& call) {
  CHUNKWISE_RETURN_IF_ERROR(context.CheckCancelled(call, "importing " + std::string(npy_path)));
  // A failed import keeps what it wrote (--resume goes on from it), but a
  // destination it made and wrote nothing into goes.
  const NewOutputDirectory new_directory(url);
  Result<ZarrArray> array = ImportNpy(context, npy_path, url, spec, options, call);
  if (!array.ok()) new_directory.RemoveIfEmpty();
  return array;
}

}  // namespace chunkwise
