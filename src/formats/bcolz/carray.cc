#include "formats/bcolz/carray.h"

#include <blosc.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <thread>

#include "formats/bcolz/chunk_writer.h"

namespace chunkwise::formats::bcolz {
namespace {

constexpr std::uint64_t kMaxChunkBytes = INT_MAX - kBloscHeaderSize;

Result<std::string> ReadText(const store::Store& store, const std::string& key) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> bytes, store.Get(key));
  if (!bytes) return Status::NotFound(store.Describe(key) + ": missing bcolz meta file");
  return std::string(AsChars(*bytes));
}

Status CheckCparams(const Cparams& cparams) {
  if (cparams.clevel < 0 || cparams.clevel > 9) {
    return Status::InvalidArgument("clevel must be in 0..9, got " + std::to_string(cparams.clevel));
  }
  if (cparams.shuffle < 0 || cparams.shuffle > 2) {
    return Status::InvalidArgument("shuffle must be 0, 1 or 2, got " +
                                   std::to_string(cparams.shuffle));
  }
  if (blosc_compname_to_compcode(cparams.cname.c_str()) < 0) {
    return Status::InvalidArgument("Blosc compressor \"" + cparams.cname +
                                   "\" is not in this c-blosc (" + blosc_list_compressors() + ")");
  }
  return Status::Ok();
}

Result<std::uint64_t> AtomSize(const core::NpyDtype& dtype, const std::vector<std::int64_t>& atom) {
  std::uint64_t size = dtype.itemsize();
  for (std::int64_t dim : atom) {
    if (dim < 0) return Status::InvalidArgument("negative row shape");
    size *= static_cast<std::uint64_t>(dim);
    if (size > kMaxChunkBytes) return Status::InvalidArgument("rows over 2 GiB are unsupported");
  }
  if (size == 0) return Status::Unsupported("rows of 0 bytes cannot be stored in bcolz chunks");
  return size;
}

int ThreadsOrCores(int threads) {
  if (threads > 0) return threads;
  return static_cast<int>(std::max(std::thread::hardware_concurrency(), 1u));
}

}  // namespace

Result<Mode> ParseMode(std::string_view text) {
  if (text == "r") return Mode::kRead;
  if (text == "a") return Mode::kAppend;
  if (text == "w") return Mode::kWrite;
  return Status::InvalidArgument("mode must be r, a or w, got \"" + std::string(text) + "\"");
}

std::shared_ptr<core::ThreadPool> MakeCompressionPool(int threads) {
  const int count = ThreadsOrCores(threads);
  if (count == 1) return nullptr;
  return std::make_shared<core::ThreadPool>(static_cast<std::size_t>(count - 1));
}

Carray::Carray(std::shared_ptr<store::Store> store, std::string prefix, Mode mode)
    : store_(std::move(store)),
      prefix_(std::move(prefix)),
      mode_(mode),
      writer_(std::make_unique<ChunkWriter>(store_.get())) {}

Carray::~Carray() {
  if (dirty_ && mode_ != Mode::kRead) (void)Flush();
}

std::string Carray::ChunkKey(std::int64_t index) const {
  return prefix_ + "data/__" + std::to_string(index) + ".blp";
}

std::vector<std::int64_t> Carray::shape() const {
  std::vector<std::int64_t> shape = {length_};
  shape.insert(shape.end(), atom_shape_.begin(), atom_shape_.end());
  return shape;
}

std::int64_t Carray::chunk_count() const { return full_chunks() + (leftover_rows() > 0 ? 1 : 0); }

Result<std::uint64_t> Carray::CompressedBytes() const {
  std::uint64_t total = 0;
  for (std::int64_t i = 0; i < full_chunks(); ++i) {
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<std::uint64_t> size, store_->Size(ChunkKey(i)));
    total += size.value_or(0);
  }
  return total;
}

Status Carray::CheckWritable() const {
  if (mode_ == Mode::kRead) {
    return Status::InvalidArgument(store_->Describe(prefix_) + ": carray is open read-only");
  }
  return Status::Ok();
}

Status Carray::InitLayout(const CarrayOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(CheckCparams(options.cparams));
  if (options.chunklen < 0 || options.chunklen > INT32_MAX) {
    return Status::InvalidArgument("chunklen must be positive");
  }
  CHUNKWISE_ASSIGN_OR_RETURN(atomsize_, AtomSize(options.dtype, options.atom_shape));
  storage_.dtype = options.dtype;
  storage_.cparams = options.cparams;
  storage_.expectedlen = options.expectedlen;
  storage_.chunklen = options.chunklen > 0 ? options.chunklen
                                           : ChunklenForExpectedlen(options.expectedlen, atomsize_);
  if (static_cast<std::uint64_t>(storage_.chunklen) * atomsize_ > kMaxChunkBytes) {
    return Status::InvalidArgument("chunklen * row size passes the Blosc1 limit of 2 GiB");
  }
  storage_.dflt = options.dflt.is_null() ? ZeroDflt(options.dtype) : options.dflt;
  CHUNKWISE_RETURN_IF_ERROR(DfltToBytes(storage_.dflt, storage_.dtype));
  atom_shape_ = options.atom_shape;
  typesize_ = BloscTypesize(storage_.dtype);
  leftover_.resize(static_cast<std::size_t>(storage_.chunklen) * atomsize_);
  return Status::Ok();
}

Result<std::unique_ptr<Carray>> Carray::Create(std::shared_ptr<store::Store> store,
                                               std::string prefix, const CarrayOptions& options) {
  std::unique_ptr<Carray> carray(new Carray(std::move(store), std::move(prefix), Mode::kAppend));
  carray->threads_ = ThreadsOrCores(options.threads);
  carray->pool_ = options.pool;
  CHUNKWISE_RETURN_IF_ERROR(carray->InitLayout(options));
  store::Store& target = *carray->store_;
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<std::string> old_keys, target.List(carray->prefix_));
  for (const std::string& key : old_keys) CHUNKWISE_RETURN_IF_ERROR(target.Erase(key));
  CHUNKWISE_RETURN_IF_ERROR(
      target.Set(carray->Key("meta/storage"), AsBytes(SerializeStorageMeta(carray->storage_))));
  CHUNKWISE_RETURN_IF_ERROR(carray->WriteSizes(0));
  CHUNKWISE_RETURN_IF_ERROR(carray->WriteAttrs());
  return carray;
}

Result<std::unique_ptr<Carray>> Carray::Open(std::shared_ptr<store::Store> store,
                                             std::string prefix, Mode mode, int threads,
                                             std::shared_ptr<core::ThreadPool> pool) {
  std::unique_ptr<Carray> carray(new Carray(std::move(store), std::move(prefix), mode));
  carray->threads_ = ThreadsOrCores(threads);
  carray->pool_ = std::move(pool);
  CHUNKWISE_RETURN_IF_ERROR(carray->LoadMeta());
  CHUNKWISE_RETURN_IF_ERROR(carray->LoadLeftover());
  const std::string attrs_key = carray->Key("__attrs__");
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> attrs, carray->store_->Get(attrs_key));
  if (attrs) {
    CHUNKWISE_ASSIGN_OR_RETURN(carray->attrs_,
                               ParseAttrs(AsChars(*attrs), carray->store_->Describe(attrs_key)));
  }
  if (mode == Mode::kWrite) CHUNKWISE_RETURN_IF_ERROR(carray->Trim(carray->length_));
  return carray;
}

Status Carray::LoadMeta() {
  const std::string storage_key = Key("meta/storage"), sizes_key = Key("meta/sizes");
  CHUNKWISE_ASSIGN_OR_RETURN(std::string storage_text, ReadText(*store_, storage_key));
  CHUNKWISE_ASSIGN_OR_RETURN(storage_,
                             ParseStorageMeta(storage_text, store_->Describe(storage_key)));
  CHUNKWISE_ASSIGN_OR_RETURN(std::string sizes_text, ReadText(*store_, sizes_key));
  CHUNKWISE_ASSIGN_OR_RETURN(
      SizesMeta sizes,
      ParseSizesMeta(sizes_text, store_->Describe(sizes_key), storage_.dtype.itemsize()));
  atom_shape_.assign(sizes.shape.begin() + 1, sizes.shape.end());
  length_ = sizes.shape[0];
  auto atomsize = AtomSize(storage_.dtype, atom_shape_);
  if (!atomsize.ok()) return atomsize.status().WithContext(store_->Describe(sizes_key));
  atomsize_ = *atomsize;
  if (static_cast<std::uint64_t>(storage_.chunklen) * atomsize_ > kMaxChunkBytes) {
    return Status::Corruption(store_->Describe(storage_key) + ": chunklen passes 2 GiB chunks");
  }
  typesize_ = BloscTypesize(storage_.dtype);
  leftover_.resize(static_cast<std::size_t>(storage_.chunklen) * atomsize_);
  // bcolz's cbytes counts the leftover buffer as a whole chunk.
  full_chunk_cbytes_ = static_cast<std::uint64_t>(std::max<std::int64_t>(sizes.cbytes, 0));
  full_chunk_cbytes_ -= std::min<std::uint64_t>(full_chunk_cbytes_, leftover_.size());
  return Status::Ok();
}

Status Carray::LoadLeftover() {
  const std::int64_t rows = leftover_rows();
  if (rows == 0) return Status::Ok();
  return DecodeRows(full_chunks(), 0, rows, leftover_.data());
}

Status Carray::WriteSizes(std::int64_t rows) {
  // Every chunk file must be in place before meta/sizes names it.
  CHUNKWISE_RETURN_IF_ERROR(writer_->Drain());
  SizesMeta sizes;
  sizes.shape = {rows};
  sizes.shape.insert(sizes.shape.end(), atom_shape_.begin(), atom_shape_.end());
  sizes.nbytes = static_cast<std::int64_t>(static_cast<std::uint64_t>(rows) * atomsize_);
  // bcolz counts the leftover buffer as a whole uncompressed chunk; cbytes is
  // informational, so a running estimate spares a stat of every chunk.
  sizes.cbytes = static_cast<std::int64_t>(full_chunk_cbytes_ + leftover_.size());
  return store_->Set(Key("meta/sizes"), AsBytes(SerializeSizesMeta(sizes)));
}

Status Carray::WriteAttrs() {
  return store_->Set(Key("__attrs__"), AsBytes(SerializeAttrs(attrs_)));
}

Status Carray::SetAttr(const std::string& name, nlohmann::json value) {
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable());
  attrs_[name] = std::move(value);
  return WriteAttrs();
}

Status Carray::WriteChunk(std::int64_t index, ByteView rows) {
  if (index == cached_index_) cached_index_ = -1;
  return CompressChunk(index, rows, threads_).status();
}

Result<std::uint64_t> Carray::CompressChunk(std::int64_t index, ByteView rows,
                                            int blosc_threads) const {
  const std::size_t capacity = kBlpHeaderSize + rows.size() + BLOSC_MAX_OVERHEAD;
  core::BufferPool::Lease buffer = buffers_->Take(capacity);
  EncodeBlpHeader(buffer.data());
  const int written = blosc_compress_ctx(
      storage_.cparams.clevel, storage_.cparams.shuffle, static_cast<std::size_t>(typesize_),
      rows.size(), rows.data(), buffer.data() + kBlpHeaderSize, capacity - kBlpHeaderSize,
      storage_.cparams.cname.c_str(), /*blocksize=*/0, blosc_threads);
  if (written <= 0) {
    return Status::Internal("blosc_compress_ctx failed with code " + std::to_string(written) +
                            " for " + store_->Describe(ChunkKey(index)));
  }
  const std::uint64_t file_size = kBlpHeaderSize + static_cast<std::uint64_t>(written);
  CHUNKWISE_RETURN_IF_ERROR(writer_->Submit(ChunkKey(index), std::move(buffer), file_size));
  return file_size;
}

core::ThreadPool& Carray::CompressionPool() {
  if (!pool_) pool_ = MakeCompressionPool(threads_);
  return *pool_;
}

Status Carray::AppendChunks(std::int64_t first_index, const std::vector<ByteView>& chunks) {
  if (cached_index_ >= first_index) cached_index_ = -1;
  std::atomic<std::uint64_t> file_bytes{0};
  auto compress = [&](std::size_t i, int blosc_threads) -> Status {
    CHUNKWISE_ASSIGN_OR_RETURN(
        std::uint64_t size,
        CompressChunk(first_index + static_cast<std::int64_t>(i), chunks[i], blosc_threads));
    file_bytes += size;
    return Status::Ok();
  };
  Status status;
  if (chunks.size() > 1 && threads_ > 1) {
    // A chunk per thread: a bcolz-sized chunk is often one Blosc block, which
    // c-blosc's own threads cannot split.
    status =
        CompressionPool().ParallelFor(chunks.size(), [&](std::size_t i) { return compress(i, 1); });
  } else {
    for (std::size_t i = 0; i < chunks.size() && status.ok(); ++i) status = compress(i, threads_);
  }
  full_chunk_cbytes_ += file_bytes;
  return status;
}

Result<const Bytes*> Carray::ChunkFile(std::int64_t index, std::int64_t rows) {
  const std::string key = ChunkKey(index);
  CHUNKWISE_RETURN_IF_ERROR(writer_->Drain());  // The chunk may be on its way to the store.
  if (index != cached_index_) {
    cached_index_ = -1;
    CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> file, store_->Get(key));
    if (!file) {
      return Status::Corruption(store_->Describe(key) + ": missing chunk file (meta/sizes says " +
                                std::to_string(length_) + " rows)");
    }
    cached_file_ = std::move(*file);
  }
  const std::string name = store_->Describe(key);
  CHUNKWISE_ASSIGN_OR_RETURN(BloscHeader header, ParseBlpFile(cached_file_, name));
  std::size_t validated = 0;
  if (blosc_cbuffer_validate(cached_file_.data() + kBlpHeaderSize, header.cbytes, &validated) !=
      0) {
    return Status::Corruption(name + ": c-blosc rejects the chunk header");
  }
  const std::uint64_t full = static_cast<std::uint64_t>(storage_.chunklen) * atomsize_;
  const std::uint64_t needed = static_cast<std::uint64_t>(rows) * atomsize_;
  // A leftover chunk may hold more rows than sizes says: an append completed
  // it but crashed before updating meta/sizes (see carray.h).
  const bool leftover = rows < storage_.chunklen;
  if ((leftover ? header.nbytes < needed || header.nbytes > full : header.nbytes != full) ||
      header.nbytes % atomsize_ != 0) {
    return Status::Corruption(name + ": chunk holds " + std::to_string(header.nbytes) +
                              " bytes, but meta/sizes and meta/storage call for " +
                              std::to_string(needed) + " (" + std::to_string(rows) + " rows of " +
                              std::to_string(atomsize_) + " bytes)");
  }
  if (atomsize_ % header.typesize != 0) {
    return Status::Corruption(name + ": Blosc typesize " + std::to_string(header.typesize) +
                              " does not divide the row size " + std::to_string(atomsize_));
  }
  cached_index_ = index;
  return &cached_file_;
}

Status Carray::DecodeRows(std::int64_t index, std::int64_t first, std::int64_t count,
                          std::uint8_t* out) {
  const std::int64_t rows_in_chunk = index < full_chunks() ? storage_.chunklen : leftover_rows();
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes* file, ChunkFile(index, rows_in_chunk));
  const std::uint8_t* chunk = file->data() + kBlpHeaderSize;
  const std::uint32_t nbytes = LoadLittleEndian<std::uint32_t>(chunk + 4);
  const std::uint64_t want = static_cast<std::uint64_t>(count) * atomsize_;
  int done = 0;
  if (first == 0 && want == nbytes) {
    done = blosc_decompress_ctx(chunk, out, want, 1);
  } else {
    // Only the blocks holding the rows are decompressed.
    const std::uint64_t typesize = chunk[3];
    done = blosc_getitem(chunk, static_cast<int>(first * atomsize_ / typesize),
                         static_cast<int>(want / typesize), out);
  }
  if (done < 0 || static_cast<std::uint64_t>(done) != want) {
    cached_index_ = -1;
    return Status::Corruption(store_->Describe(ChunkKey(index)) +
                              ": Blosc chunk does not decompress (code " + std::to_string(done) +
                              ")");
  }
  return Status::Ok();
}

Status Carray::Append(ByteView rows) {
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable());
  if (rows.size() % atomsize_ != 0) {
    return Status::InvalidArgument("append of " + std::to_string(rows.size()) +
                                   " bytes is not a whole number of " + std::to_string(atomsize_) +
                                   "-byte rows");
  }
  if (hooks_.progress == nullptr && hooks_.cancellation == nullptr) return AppendBatch(rows);
  // Batches end on chunk boundaries, so that each one's chunks are in meta/sizes when it returns.
  const std::uint64_t batch =
      static_cast<std::uint64_t>(storage_.chunklen) * atomsize_ * std::max(threads_, 1);
  for (std::size_t pos = 0; pos < rows.size();) {
    if (hooks_.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(
          hooks_.cancellation->Check("appending to " + store_->Describe(prefix_)));
    }
    const std::uint64_t filled = static_cast<std::uint64_t>(leftover_rows()) * atomsize_;
    const std::size_t size = std::min<std::uint64_t>(rows.size() - pos, batch - filled);
    CHUNKWISE_RETURN_IF_ERROR(AppendBatch(rows.subspan(pos, size)));
    if (hooks_.progress != nullptr) hooks_.progress->Add(size);
    pos += size;
  }
  return Status::Ok();
}

Status Carray::AppendBatch(ByteView rows) {
  const auto chunklen = static_cast<std::uint64_t>(storage_.chunklen);
  const std::uint64_t chunk_bytes = chunklen * atomsize_;
  std::uint64_t filled = static_cast<std::uint64_t>(leftover_rows()) * atomsize_;
  const std::int64_t first_new_chunk = full_chunks();
  std::vector<ByteView> chunks;
  std::size_t pos = 0;
  if (filled > 0) {
    pos = std::min<std::size_t>(rows.size(), chunk_bytes - filled);
    std::memcpy(leftover_.data() + filled, rows.data(), pos);
    filled += pos;
    if (filled == chunk_bytes) {
      chunks.push_back(leftover_);
      filled = 0;
    }
  }
  for (; rows.size() - pos >= chunk_bytes; pos += chunk_bytes) {
    chunks.push_back(rows.subspan(pos, chunk_bytes));
  }
  CHUNKWISE_RETURN_IF_ERROR(AppendChunks(first_new_chunk, chunks));
  // After the chunks are compressed: the first may have been leftover_ itself.
  if (pos < rows.size()) {
    std::memcpy(leftover_.data() + filled, rows.data() + pos, rows.size() - pos);
  }
  length_ += static_cast<std::int64_t>(rows.size() / atomsize_);
  dirty_ = true;
  // Make the completed chunks part of the array on disk, so that a crash
  // loses only the leftover still in memory.
  if (!chunks.empty()) {
    CHUNKWISE_RETURN_IF_ERROR(WriteSizes(
        (first_new_chunk + static_cast<std::int64_t>(chunks.size())) * storage_.chunklen));
  }
  return Status::Ok();
}

Status Carray::Read(std::int64_t start, std::int64_t stop, MutableByteView out) {
  if (start < 0 || stop < start || stop > length_) {
    return Status::OutOfRange("rows [" + std::to_string(start) + ", " + std::to_string(stop) +
                              ") outside the " + std::to_string(length_) + " rows of " +
                              store_->Describe(prefix_));
  }
  if (out.size() != static_cast<std::uint64_t>(stop - start) * atomsize_) {
    return Status::InvalidArgument("output buffer size does not match the rows read");
  }
  const std::int64_t chunklen = storage_.chunklen;
  std::uint8_t* dest = out.data();
  for (std::int64_t row = start; row < stop;) {
    const std::int64_t index = row / chunklen;
    const std::int64_t first = row % chunklen;
    const std::int64_t count = std::min(stop - row, chunklen - first);
    if (hooks_.cancellation != nullptr) {
      CHUNKWISE_RETURN_IF_ERROR(hooks_.cancellation->Check("reading " + store_->Describe(prefix_)));
    }
    if (index == full_chunks()) {
      std::memcpy(dest, leftover_.data() + first * atomsize_, count * atomsize_);
    } else {
      CHUNKWISE_RETURN_IF_ERROR(DecodeRows(index, first, count, dest));
    }
    if (hooks_.progress != nullptr) hooks_.progress->Add(count * atomsize_);
    dest += count * atomsize_;
    row += count;
  }
  return Status::Ok();
}

Result<Bytes> Carray::Read(std::int64_t start, std::int64_t stop) {
  if (start < 0 || stop < start || stop > length_) {
    return Read(start, stop, MutableByteView());
  }
  Bytes out(static_cast<std::size_t>(stop - start) * atomsize_);
  CHUNKWISE_RETURN_IF_ERROR(Read(start, stop, out));
  return out;
}

Status Carray::Write(std::int64_t start, ByteView rows) {
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable());
  const auto count = static_cast<std::int64_t>(rows.size() / atomsize_);
  if (rows.size() % atomsize_ != 0 || start < 0 || start + count > length_) {
    return Status::OutOfRange("write of " + std::to_string(rows.size()) + " bytes at row " +
                              std::to_string(start) + " does not fit the " +
                              std::to_string(length_) + " rows");
  }
  const std::int64_t chunklen = storage_.chunklen;
  const std::uint64_t chunk_bytes = static_cast<std::uint64_t>(chunklen) * atomsize_;
  Bytes scratch;
  for (std::int64_t row = start; row < start + count;) {
    const std::int64_t index = row / chunklen, first = row % chunklen;
    const std::int64_t n = std::min(start + count - row, chunklen - first);
    const ByteView part = rows.subspan((row - start) * atomsize_, n * atomsize_);
    if (index == full_chunks()) {
      std::memcpy(leftover_.data() + first * atomsize_, part.data(), part.size());
      dirty_ = true;
    } else if (n == chunklen) {
      CHUNKWISE_RETURN_IF_ERROR(WriteChunk(index, part));
    } else {
      scratch.resize(chunk_bytes);
      CHUNKWISE_RETURN_IF_ERROR(DecodeRows(index, 0, chunklen, scratch.data()));
      std::memcpy(scratch.data() + first * atomsize_, part.data(), part.size());
      CHUNKWISE_RETURN_IF_ERROR(WriteChunk(index, scratch));
    }
    row += n;
  }
  return Status::Ok();
}

Status Carray::EraseChunksFrom(std::int64_t first, std::int64_t end) {
  CHUNKWISE_RETURN_IF_ERROR(writer_->Drain());
  for (std::int64_t i = first; i < end; ++i) {
    CHUNKWISE_RETURN_IF_ERROR(store_->Erase(ChunkKey(i)));
  }
  if (cached_index_ >= first) cached_index_ = -1;
  return Status::Ok();
}

Status Carray::Trim(std::int64_t rows) {
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable());
  if (rows < 0 || rows > length_) {
    return Status::OutOfRange("cannot trim " + std::to_string(rows) + " of " +
                              std::to_string(length_) + " rows");
  }
  const std::int64_t old_files = chunk_count();
  const std::int64_t new_length = length_ - rows;
  const std::int64_t new_full = new_length / storage_.chunklen;
  const std::int64_t new_leftover = new_length % storage_.chunklen;
  // The surviving part of a full chunk becomes the leftover; read it first.
  if (new_full < full_chunks() && new_leftover > 0) {
    CHUNKWISE_RETURN_IF_ERROR(DecodeRows(new_full, 0, new_leftover, leftover_.data()));
  }
  length_ = new_length;
  // sizes shrinks first: until the files below change, every file sizes
  // names still holds at least the rows it needs.
  CHUNKWISE_RETURN_IF_ERROR(WriteSizes(new_length));
  if (new_leftover > 0) {
    CHUNKWISE_RETURN_IF_ERROR(
        WriteChunk(new_full, ByteView(leftover_.data(), new_leftover * atomsize_)));
  }
  CHUNKWISE_RETURN_IF_ERROR(EraseChunksFrom(new_full + (new_leftover > 0 ? 1 : 0), old_files));
  CHUNKWISE_ASSIGN_OR_RETURN(full_chunk_cbytes_, CompressedBytes());
  CHUNKWISE_RETURN_IF_ERROR(WriteSizes(new_length));  // With cbytes after the erase.
  dirty_ = false;
  return Status::Ok();
}

Status Carray::Resize(std::int64_t new_length) {
  CHUNKWISE_RETURN_IF_ERROR(CheckWritable());
  if (new_length < 0) return Status::OutOfRange("negative length");
  if (new_length <= length_) return Trim(length_ - new_length);
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes element, DfltToBytes(storage_.dflt, storage_.dtype));
  const std::int64_t batch = std::min(new_length - length_, storage_.chunklen);
  Bytes fill(static_cast<std::size_t>(batch) * atomsize_);
  for (std::size_t at = 0; at < fill.size(); at += element.size()) {
    std::memcpy(fill.data() + at, element.data(), element.size());
  }
  while (length_ < new_length) {
    const std::int64_t n = std::min(new_length - length_, batch);
    CHUNKWISE_RETURN_IF_ERROR(Append(ByteView(fill.data(), n * atomsize_)));
  }
  return Flush();
}

Status Carray::Flush() {
  if (mode_ == Mode::kRead) return Status::Ok();
  if (leftover_rows() > 0) {
    CHUNKWISE_RETURN_IF_ERROR(
        WriteChunk(full_chunks(), ByteView(leftover_.data(), leftover_rows() * atomsize_)));
  }
  CHUNKWISE_RETURN_IF_ERROR(WriteSizes(length_));
  dirty_ = false;
  return Status::Ok();
}

}  // namespace chunkwise::formats::bcolz
