// Carray: a bcolz 1.x persistent carray, as a view over a Store.
//
// Spec: docs/formats/bcolz.md, "carray directory", "Writer behaviour", "Crash safety".
// A carray under `prefix` is the keys meta/storage, meta/sizes, __attrs__ and
// data/__N.blp (one Blosc1 chunk of `chunklen` rows each); a store has no
// directories, so an empty data/, which bcolz's open() needs on disk, is the
// business of io/bcolz_files.h (AddBcolzDataDirectories). Rows are atoms of
// a fixed-size dtype, possibly n-d (shape[1:]) or structured. As in bcolz,
// the rows after the last full chunk (the leftover) live in memory; Flush()
// writes them to data/__{nfull}.blp and then meta/sizes. Crash safety: every
// chunk file and meta file is replaced atomically (Store::Set), and when an
// Append completes chunks, meta/sizes is advanced to cover them, so a crash
// loses at most the rows appended since the last Flush that did not complete
// a chunk. The full chunks of one Append are compressed in parallel (one
// thread per chunk) and their files written by a background thread while
// later chunks compress; every chunk file is on disk before meta/sizes names
// it. Readers accept a leftover chunk file holding more rows than sizes says
// (the state between completing it and updating sizes).
//
// A Carray is not thread-safe: one thread (and one process) writes it.
#ifndef CHUNKWISE_FORMATS_BCOLZ_CARRAY_H_
#define CHUNKWISE_FORMATS_BCOLZ_CARRAY_H_

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "chunkwise/core/buffer_pool.h"
#include "chunkwise/core/bytes.h"
#include "chunkwise/core/cancellation.h"
#include "chunkwise/core/npy_dtype.h"
#include "chunkwise/core/progress.h"
#include "chunkwise/core/result.h"
#include "chunkwise/core/thread_pool.h"
#include "chunkwise/store/store.h"
#include "formats/bcolz/blp_format.h"
#include "formats/bcolz/meta.h"

namespace chunkwise::formats::bcolz {

class ChunkWriter;

// bcolz's open modes.
enum class Mode {
  kRead,    // 'r': read only; writes fail with InvalidArgument.
  kAppend,  // 'a': open and modify.
  kWrite,   // 'w': open and truncate to length 0 (Create always starts empty).
};

// Parses "r", "a" or "w"; InvalidArgument otherwise.
Result<Mode> ParseMode(std::string_view text);

// What a long Append or Read reports to and stops on; both may be null (not owned).
struct CallHooks {
  core::ProgressReporter* progress = nullptr;        // Counts the row bytes done.
  const core::Cancellation* cancellation = nullptr;  // Checked before each chunk.
};

struct CarrayOptions {
  core::NpyDtype dtype;                  // The scalar (base) dtype of each element.
  std::vector<std::int64_t> atom_shape;  // Shape of one row; empty for scalar rows.
  Cparams cparams;
  std::int64_t expectedlen = 0;  // Rows expected; picks chunklen as bcolz does.
  std::int64_t chunklen = 0;     // Rows per chunk; 0 = derive from expectedlen.
  nlohmann::json dflt;           // Fill for Resize; null = the dtype's zero.
  // Threads that compress: the full chunks of one Append compress in
  // parallel, one per thread; a lone chunk (a flush, a rewrite) uses c-blosc's
  // own threads. 0 = one per core.
  int threads = 0;
  // Runs the parallel compression; null = a pool of threads - 1 workers (the
  // caller is the last thread), made on first need. A Ctable shares one.
  std::shared_ptr<core::ThreadPool> pool;
};

// The pool a carray with `threads` (as in CarrayOptions) compresses on:
// threads - 1 workers, the caller being the last; null for one thread.
std::shared_ptr<core::ThreadPool> MakeCompressionPool(int threads);

class Carray {
 public:
  // Creates an empty carray under `prefix` ("" or "dir/"), first erasing
  // every key under it (bcolz mode 'w'). InvalidArgument for a bad option
  // (unknown cname, clevel, chunklen < 0, atom over 2 GiB); store errors.
  static Result<std::unique_ptr<Carray>> Create(std::shared_ptr<store::Store> store,
                                                std::string prefix, const CarrayOptions& options);
  // Opens the carray under `prefix`. NotFound naming the file when a meta
  // file is missing; Corruption naming the file when a meta file or the
  // leftover chunk is malformed or disagrees with the others; InvalidArgument
  // for an unmappable dtype. kWrite truncates to length 0.
  // `threads` and `pool` as in CarrayOptions.
  static Result<std::unique_ptr<Carray>> Open(std::shared_ptr<store::Store> store,
                                              std::string prefix, Mode mode, int threads = 0,
                                              std::shared_ptr<core::ThreadPool> pool = nullptr);

  // Flushes if there are unwritten changes, ignoring errors: call Close()
  // to see them.
  ~Carray();
  Carray(const Carray&) = delete;
  Carray& operator=(const Carray&) = delete;

  const core::NpyDtype& dtype() const { return storage_.dtype; }
  const std::vector<std::int64_t>& atom_shape() const { return atom_shape_; }
  // {length, atom_shape...}.
  std::vector<std::int64_t> shape() const;
  std::int64_t length() const { return length_; }
  std::uint64_t atomsize() const { return atomsize_; }
  std::int64_t chunklen() const { return storage_.chunklen; }
  const Cparams& cparams() const { return storage_.cparams; }
  const StorageMeta& storage() const { return storage_; }
  Mode mode() const { return mode_; }
  // Chunk files in use: full chunks plus one for the leftover, if any.
  std::int64_t chunk_count() const;
  // Sum of the compressed chunk file sizes (stat'ed, not read).
  Result<std::uint64_t> CompressedBytes() const;

  // The hooks of the calls that follow (Append, Read); {} for none.
  void set_hooks(const CallHooks& hooks) { hooks_ = hooks; }

  // Appends whole rows (rows.size() a multiple of atomsize, in the dtype's
  // byte order). The chunks it completes are compressed, in parallel when
  // there are several, and written before it returns. With hooks, in
  // batches of one chunk per thread, each counted in meta/sizes before the
  // next: Cancelled between batches keeps the rows of the batches done.
  Status Append(ByteView rows);
  // Rows [start, stop) into `out` (size (stop - start) * atomsize).
  // Cancelled, with hooks, between chunks. Decompresses only the chunks the range touches and,
  // inside a partly covered chunk, only the blocks it needs. OutOfRange for a range outside [0,
  // length]; Corruption naming the chunk file for a missing, truncated or inconsistent one.
  Status Read(std::int64_t start, std::int64_t stop, MutableByteView out);
  Result<Bytes> Read(std::int64_t start, std::int64_t stop);
  // Overwrites rows [start, start + n) with `rows`; rewrites only the chunks
  // touched (the leftover is rewritten on Flush). OutOfRange past length.
  Status Write(std::int64_t start, ByteView rows);
  // Removes the last `rows` rows, deleting chunk files no longer used, and
  // flushes. OutOfRange if rows > length or < 0.
  Status Trim(std::int64_t rows);
  // Sets the length: grows with dflt rows or trims; flushes.
  Status Resize(std::int64_t new_length);
  // Writes the leftover chunk and meta/sizes. Does nothing in mode 'r'.
  Status Flush();
  // Flush; the carray stays usable.
  Status Close() { return Flush(); }

  // The user attributes (__attrs__), a JSON object.
  const nlohmann::json& attrs() const { return attrs_; }
  // Sets one attribute and rewrites __attrs__ at once.
  Status SetAttr(const std::string& name, nlohmann::json value);

  // The key of a file of this carray, e.g. Key("meta/sizes").
  std::string Key(std::string_view name) const { return prefix_ + std::string(name); }
  std::string ChunkKey(std::int64_t index) const;

 private:
  Carray(std::shared_ptr<store::Store> store, std::string prefix, Mode mode);
  Status CheckWritable() const;
  Status InitLayout(const CarrayOptions& options);
  // Reads meta/storage and meta/sizes into the members.
  Status LoadMeta();
  Status LoadLeftover();
  Status WriteSizes(std::int64_t rows);
  Status WriteAttrs();
  // Append without hooks: all of `rows` in one go.
  Status AppendBatch(ByteView rows);
  // Compresses rows into data/__index.blp (c-blosc's threads).
  Status WriteChunk(std::int64_t index, ByteView rows);
  // Compresses rows into the file of chunk `index` with `blosc_threads` and
  // queues its write; returns the file's size. Changes no member, so calls
  // for distinct chunks may run concurrently.
  Result<std::uint64_t> CompressChunk(std::int64_t index, ByteView rows, int blosc_threads) const;
  // Writes chunks first_index, first_index + 1, ... from `chunks`, in
  // parallel when there are several, and counts their bytes in cbytes.
  Status AppendChunks(std::int64_t first_index, const std::vector<ByteView>& chunks);
  core::ThreadPool& CompressionPool();
  // The validated file of chunk `index`, which must hold at least `rows` rows.
  Result<const Bytes*> ChunkFile(std::int64_t index, std::int64_t rows);
  // Rows [first, first + count) of chunk `index` (relative rows) into `out`.
  Status DecodeRows(std::int64_t index, std::int64_t first, std::int64_t count, std::uint8_t* out);
  Status EraseChunksFrom(std::int64_t first, std::int64_t end);
  std::int64_t full_chunks() const { return length_ / storage_.chunklen; }
  std::int64_t leftover_rows() const { return length_ % storage_.chunklen; }

  std::shared_ptr<store::Store> store_;
  std::string prefix_;
  Mode mode_;
  int threads_ = 1;
  std::shared_ptr<core::ThreadPool> pool_;  // See CarrayOptions::pool.
  // Lends the compressed chunks' buffers until the writer has stored them;
  // declared before writer_, so that it outlives the writer's leases.
  std::shared_ptr<core::BufferPool> buffers_ =
      std::make_shared<core::BufferPool>(core::kDefaultPoolIdleBytes);
  StorageMeta storage_;
  std::vector<std::int64_t> atom_shape_;
  std::uint64_t atomsize_ = 0;
  int typesize_ = 1;
  std::int64_t length_ = 0;
  Bytes leftover_;  // chunklen rows; the first leftover_rows() are live.
  bool dirty_ = false;
  nlohmann::json attrs_ = nlohmann::json::object();
  // The last chunk file read, so that nearby reads skip the store.
  std::int64_t cached_index_ = -1;
  Bytes cached_file_;
  // Writes chunk files in the background; drained before anything that must
  // see them (reads, meta/sizes, erasing).
  std::unique_ptr<ChunkWriter> writer_;
  std::uint64_t full_chunk_cbytes_ = 0;  // Estimate for meta/sizes' cbytes.
  CallHooks hooks_;
};

}  // namespace chunkwise::formats::bcolz

#endif  // CHUNKWISE_FORMATS_BCOLZ_CARRAY_H_
