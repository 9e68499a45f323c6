// Communicator: the ranks of one job, processes that share a piece of work
// (the MPI model, without MPI). Rank 0 prepares and publishes; every rank
// works on what it owns; the collective calls below are where they meet.
//
// The interface lives in core so that pipelines can take a job's ranks
// without linking MPI: SingleProcess is the one-rank job every command runs
// as by default, and parallel/job.h gives MPI's world when chunkwise was built
// with MPI and launched by mpirun or srun. Every rank must make the same
// sequence of collective calls (Barrier, Gather, Broadcast and the helpers
// built on them), or the job hangs: code between them returns errors as
// values to share, never early.
#ifndef CHUNKWISE_CORE_COMMUNICATOR_H_
#define CHUNKWISE_CORE_COMMUNICATOR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chunkwise/core/result.h"

namespace chunkwise::core {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;  // 0 .. size() - 1.
  virtual int size() const = 0;
  // Returns once every rank has called it.
  virtual Status Barrier() = 0;
  // Every rank's `value` in rank order, on rank 0; an empty vector on the others.
  virtual Result<std::vector<std::string>> Gather(std::string_view value) = 0;
  // Rank 0's `value`, on every rank (the others' argument is ignored).
  virtual Result<std::string> Broadcast(std::string_view value) = 0;
};

// The job of one process: rank 0 of 1, every call immediate.
class SingleProcess final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Status Barrier() override { return Status::Ok(); }
  Result<std::vector<std::string>> Gather(std::string_view value) override;
  Result<std::string> Broadcast(std::string_view value) override;
};

// The rank that owns work unit `unit` (an output shard's number) in a job of
// `size` ranks: the same on every rank and every run, so no two ranks ever
// write one object and a resumed job deals the units as the first did.
// Consecutive units (neighbouring shards) go to different ranks.
inline int OwnerRank(std::uint64_t unit, int size) {
  return static_cast<int>(unit % static_cast<std::uint64_t>(size));
}

// One rank's share of a job's work units: those OwnerRank deals to `rank`.
// The default is the whole job (rank 0 of 1), as one process does it.
struct JobPart {
  int rank = 0;
  int size = 1;
  bool Owns(std::uint64_t unit) const { return OwnerRank(unit, size) == rank; }
  bool whole() const { return size == 1; }
};

// A Status as text and back, to pass between ranks.
std::string EncodeStatus(const Status& status);
Status DecodeStatus(std::string_view text);

// Rank 0's `status` on every rank (the others' argument is ignored): after
// rank 0 prepares, every rank goes on or stops together.
Status ShareRootStatus(Communicator& ranks, const Status& status);

// Gathers each rank's outcome of the work: rank 0 gets every rank's value in
// rank order, the others an empty vector. If any rank failed, every rank gets
// the failure of the lowest failing rank, its code kept and its message
// prefixed "rank R of N: " when N > 1 (and "(K ranks failed)" when several did).
Result<std::vector<std::string>> GatherOutcomes(Communicator& ranks,
                                                const Result<std::string>& outcome);

}  // namespace chunkwise::core

#endif  // CHUNKWISE_CORE_COMMUNICATOR_H_
