// S3ValueWriter: a value streamed to S3, one PUT or a multipart upload.
//
// Appended bytes fill parts (S3TransferOptions::part_size, doubling every
// 1,000 parts). The first part is held until Commit, so the bytes a shard
// index reserves at the start can be overwritten last; from the second part
// on, each full part is uploaded at once, up to parts_in_flight at a time,
// while the caller goes on appending. A value that never fills two parts is
// sent as one PUT on Commit. Commit completes the upload, and only then does
// the object appear, whole. A failed part, a failed Commit, or a writer
// dropped before Commit aborts the upload, so no object appears and no parts
// are left to pay for (a killed process leaves them to the bucket's
// lifecycle rule; docs/stores.md, "Multipart uploads").
#ifndef CHUNKWISE_SRC_STORE_S3_WRITER_H_
#define CHUNKWISE_SRC_STORE_S3_WRITER_H_

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "chunkwise/store/value_writer.h"
#include "store/s3_client.h"

namespace chunkwise::store {

class S3ValueWriter final : public ValueWriter {
 public:
  S3ValueWriter(std::shared_ptr<const S3Client> client, std::string object_key,
                S3WriteCondition condition);
  ~S3ValueWriter() override;

  Status Append(ByteView data) override;
  // Bytes in the first part or in the part not yet sent may be overwritten;
  // bytes already uploaded cannot (Unsupported, naming the part).
  Status Overwrite(std::uint64_t offset, ByteView data) override;
  Status Commit() override;
  std::uint64_t size() const override { return size_; }
  // The version Commit stored (its ETag is the value's generation).
  const ObjectVersion& version() const { return version_; }

  // The largest part `part_number` (from 1) may be.
  static std::uint64_t PartSize(std::uint64_t part_size, int part_number);

 private:
  Status CheckOpen() const;
  // Uploads `data` as part `number` on the client's pool, once fewer than
  // parts_in_flight are under way; starts the upload first if need be.
  Status SendPart(int number, Bytes data);
  // Waits for every part in flight; the first error any of them met.
  Status WaitForParts();
  Status Finish();
  void AbortUpload();

  std::shared_ptr<const S3Client> client_;
  std::string object_key_;
  S3WriteCondition condition_;
  std::uint64_t part_size_;

  Bytes first_;    // Part 1, held until Commit.
  Bytes current_;  // Part current_number_ while it fills (when current_number_ > 1).
  int current_number_ = 1;
  std::uint64_t current_start_ = 0;  // The value offset where current_ begins.
  std::uint64_t size_ = 0;
  std::string upload_id_;
  bool finished_ = false;  // Committed, or Commit failed.
  bool committed_ = false;
  ObjectVersion version_;  // Set by a successful Commit.

  std::mutex mutex_;
  std::condition_variable part_done_;
  int in_flight_ = 0;               // Guarded by mutex_.
  Status error_;                    // The first part's failure; guarded by mutex_.
  std::vector<std::string> etags_;  // By part number - 1; guarded by mutex_.
};

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_S3_WRITER_H_
