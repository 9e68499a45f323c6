#include "formats/refs/bcolz_references.h"

#include <nlohmann/json.hpp>

#include "codec/blosc_codec.h"
#include "formats/bcolz/blp_format.h"
#include "formats/bcolz/carray.h"
#include "formats/bcolz/meta.h"

namespace chunkwise::formats::refs {
namespace {

using bcolz::Carray;
using store::Reference;

std::string ChunkKey(std::int64_t row_chunk, std::size_t atom_rank) {
  std::string key = std::to_string(row_chunk);
  for (std::size_t d = 0; d < atom_rank; ++d) key += ".0";
  return key;
}

nlohmann::ordered_json Zarray(const Carray& carray) {
  nlohmann::ordered_json zarray;
  zarray["zarr_format"] = 2;
  zarray["shape"] = carray.shape();
  std::vector<std::int64_t> chunks = carray.shape();
  chunks[0] = carray.chunklen();
  zarray["chunks"] = chunks;
  zarray["dtype"] = carray.dtype().typestr();
  zarray["compressor"] = {{"id", "blosc"},
                          {"cname", carray.cparams().cname},
                          {"clevel", carray.cparams().clevel},
                          {"shuffle", carray.cparams().shuffle},
                          {"blocksize", 0}};
  const nlohmann::json& dflt = carray.storage().dflt;
  zarray["fill_value"] = dflt.is_number() || dflt.is_boolean() ? dflt : nlohmann::json(0);
  zarray["filters"] = nullptr;
  zarray["order"] = "C";
  return zarray;
}

// Bytes [16, 16 + cbytes) of a full chunk's file, after checking its headers.
Result<Reference> FullChunk(store::Store& store, const Carray& carray, std::int64_t index,
                            const std::string& url_base) {
  const std::string key = carray.ChunkKey(index);
  const std::string name = store.Describe(key);
  CHUNKWISE_ASSIGN_OR_RETURN(const std::optional<std::uint64_t> size, store.Size(key));
  if (!size) return Status::Corruption(name + " is missing");
  constexpr std::size_t kHeaders = bcolz::kBlpHeaderSize + bcolz::kBloscHeaderSize;
  CHUNKWISE_ASSIGN_OR_RETURN(
      const std::optional<Bytes> head,
      store.GetRange(key, store::ByteRange::Span(0, std::min<std::uint64_t>(*size, kHeaders))));
  if (!head) return Status::Corruption(name + " is missing");
  CHUNKWISE_RETURN_IF_ERROR(bcolz::CheckBlpHeader(*head, name));
  CHUNKWISE_ASSIGN_OR_RETURN(
      const bcolz::BloscHeader blosc,
      bcolz::ParseBloscHeader(ByteView(*head).subspan(bcolz::kBlpHeaderSize), name));
  const std::uint64_t expected = static_cast<std::uint64_t>(carray.chunklen()) * carray.atomsize();
  if (blosc.nbytes != expected || blosc.cbytes != *size - bcolz::kBlpHeaderSize) {
    return Status::Corruption(name + ": Blosc chunk of " + std::to_string(blosc.nbytes) +
                              " bytes (" + std::to_string(blosc.cbytes) + " compressed) in a " +
                              std::to_string(*size) + "-byte file; expected " +
                              std::to_string(expected) + " bytes");
  }
  return Reference::Range(url_base + key, bcolz::kBlpHeaderSize, blosc.cbytes);
}

// The leftover rows padded with dflt to a full chunk, compressed as bcolz would.
Result<Reference> LeftoverChunk(Carray& carray, std::int64_t first_row) {
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes rows, carray.Read(first_row, carray.length()));
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes dflt,
                             bcolz::DfltToBytes(carray.storage().dflt, carray.dtype()));
  const std::size_t chunk_bytes = static_cast<std::size_t>(carray.chunklen()) * carray.atomsize();
  Bytes chunk(chunk_bytes);
  std::memcpy(chunk.data(), rows.data(), rows.size());
  for (std::size_t at = rows.size(); at < chunk_bytes; at += dflt.size()) {
    std::memcpy(chunk.data() + at, dflt.data(), std::min(dflt.size(), chunk_bytes - at));
  }
  codec::BloscOptions options;
  options.cname = carray.cparams().cname;
  options.clevel = carray.cparams().clevel;
  options.shuffle = static_cast<codec::BloscShuffle>(carray.cparams().shuffle);
  options.typesize = bcolz::BloscTypesize(carray.dtype());
  CHUNKWISE_ASSIGN_OR_RETURN(const auto blosc, codec::BloscCodec::Create(options));
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes encoded, blosc->Encode(chunk));
  return Reference::Inline(std::move(encoded));
}

// How many of chunks [0, chunks) `part` owns.
std::uint64_t OwnedCount(const core::JobPart& part, std::int64_t chunks) {
  std::uint64_t owned = 0;
  for (std::int64_t i = 0; i < chunks; ++i) {
    if (part.Owns(static_cast<std::uint64_t>(i))) ++owned;
  }
  return owned;
}

}  // namespace

Result<ReferenceSet> BuildBcolzReferences(std::shared_ptr<store::Store> store,
                                          const std::string& prefix,
                                          const BcolzReferenceOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::unique_ptr<Carray> carray,
                             Carray::Open(store, prefix, bcolz::Mode::kRead));
  const char kind = carray->dtype().kind();
  if (carray->dtype().is_structured() ||
      std::string_view("biufc").find(kind) == std::string_view::npos) {
    return Status::Unsupported(store->Describe(prefix.empty() ? "." : prefix) + ": dtype " +
                               carray->dtype().ToDescr() +
                               " is not numeric; only numeric carrays have a zarr v2 view");
  }
  ReferenceSet out;
  out.Set(".zarray", Reference::Inline(CopyToBytes(AsBytes(Zarray(*carray).dump(4)))));
  out.Set(".zattrs", Reference::Inline(CopyToBytes(AsBytes(carray->attrs().dump(4)))));
  const std::size_t atom_rank = carray->atom_shape().size();
  const std::int64_t full = carray->length() / carray->chunklen();
  const bool leftover = carray->length() % carray->chunklen() != 0;
  const std::int64_t chunks = full + (leftover ? 1 : 0);
  std::unique_ptr<core::ProgressReporter> progress;
  if (options.start_progress) progress = options.start_progress(OwnedCount(options.part, chunks));
  for (std::int64_t i = 0; i < chunks; ++i) {
    if (!options.part.Owns(static_cast<std::uint64_t>(i))) continue;
    if (options.cancellation != nullptr && options.cancellation->cancelled()) {
      return options.cancellation->Check("building references to " +
                                         store->Describe(carray->ChunkKey(i)));
    }
    CHUNKWISE_ASSIGN_OR_RETURN(Reference reference,
                               i < full ? FullChunk(*store, *carray, i, options.url_base)
                                        : LeftoverChunk(*carray, full * carray->chunklen()));
    out.Set(ChunkKey(i, atom_rank), reference);
    if (progress != nullptr) progress->Add(1);
  }
  if (progress != nullptr) progress->Finish();
  return out;
}

}  // namespace chunkwise::formats::refs
