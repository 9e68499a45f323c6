#include "pipelines/skeletons/skeleton_job.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "core/memory_limit.h"
#include "formats/precomputed/segment_shards.h"
#include "pipelines/skeletons/blocked_skeleton.h"
#include "pipelines/skeletons/label_loop.h"
#include "pipelines/skeletons/source_chunks.h"

namespace chunkwise::pipelines::skeletons {
namespace {

namespace pc = formats::precomputed;

std::array<std::int64_t, 3> Grid(const SkeletonSource& source) {
  std::array<std::int64_t, 3> grid{};
  for (int a = 0; a < 3; ++a) {
    grid[a] = source.chunk[a] > 0 ? (source.shape[a] + source.chunk[a] - 1) / source.chunk[a] : 0;
  }
  return grid;
}

// Chunk `index` of the grid, in C order, clipped to the volume.
VoxelBox ChunkBox(const SkeletonSource& source, std::uint64_t index) {
  const std::array<std::int64_t, 3> grid = Grid(source);
  const auto i = static_cast<std::int64_t>(index);
  const std::array<std::int64_t, 3> g{i / (grid[1] * grid[2]), i / grid[2] % grid[1], i % grid[2]};
  VoxelBox box;
  for (int a = 0; a < 3; ++a) {
    box.start[a] = g[a] * source.chunk[a];
    box.stop[a] = std::min(box.start[a] + source.chunk[a], source.shape[a]);
  }
  return box;
}

std::uint64_t BoxVoxels(const VoxelBox& box) {
  std::uint64_t n = 1;
  for (int a = 0; a < 3; ++a) n *= static_cast<std::uint64_t>(box.stop[a] - box.start[a]);
  return n;
}

core::Region ToRegion(const VoxelBox& box) {
  return core::Region(core::Coord(box.start.begin(), box.start.end()),
                      core::Coord(box.stop.begin(), box.stop.end()));
}

std::string Mib(std::uint64_t bytes) {
  return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

// The label's crop (teasar.h, LabelCrop) from its padded box of the source,
// into `crop`, whose mask's capacity is reused. The mask is made from the
// cache's chunks row by row (SourceChunks::VisitRows), without a copy of
// the box's labels. Corruption naming `where` when the source holds the
// label outside `extent`'s box, or not as many voxels of it: the table the
// scan made does not match.
Status ReadCrop(const SkeletonSource& source, SourceChunks& chunks, std::uint64_t label,
                const LabelExtent& extent, const std::string& where, LabelCrop& crop) {
  crop.label = label;
  crop.box = extent.box;
  const VoxelBox& box = extent.box;
  const std::array<std::int64_t, 3> dims = crop.dims();
  crop.mask.assign(crop.voxels(), 0);
  VoxelBox read;
  for (int a = 0; a < 3; ++a) {
    read.start[a] = std::max<std::int64_t>(box.start[a] - 1, 0);
    read.stop[a] = std::min(box.stop[a] + 1, source.shape[a]);
  }
  std::uint64_t found = 0;
  bool outside = false;
  CHUNKWISE_RETURN_IF_ERROR(
      chunks.VisitRows(read, [&](std::int64_t z, std::int64_t y, std::int64_t x,
                                 const std::uint64_t* labels, std::int64_t n) {
        // The row's voxels inside the box, [inside_first, inside_last) of
        // the piece; all of the label's voxels elsewhere are outside it.
        std::int64_t inside_first = 0, inside_last = 0;
        if (z >= box.start[0] && z < box.stop[0] && y >= box.start[1] && y < box.stop[1]) {
          inside_first = std::clamp<std::int64_t>(box.start[2] - x, 0, n);
          inside_last = std::clamp<std::int64_t>(box.stop[2] - x, inside_first, n);
        }
        for (std::int64_t k = 0; k < inside_first; ++k) outside = outside || labels[k] == label;
        for (std::int64_t k = inside_last; k < n; ++k) outside = outside || labels[k] == label;
        if (inside_first == inside_last) return;
        // Padded crop coordinates: the box's start is (1, 1, 1).
        std::uint8_t* to = crop.mask.data() +
                           ((z - box.start[0] + 1) * dims[1] + (y - box.start[1] + 1)) * dims[2] +
                           (x - box.start[2] + 1);
        std::uint64_t here = 0;
        for (std::int64_t k = inside_first; k < inside_last; ++k) {
          const std::uint8_t is = labels[k] == label ? 1 : 0;
          to[k] = is;
          here += is;
        }
        found += here;
      }));
  if (outside || found != extent.voxels) {
    return Status::Corruption(where + ": label " + std::to_string(label) +
                              " is not where the scan found it (" + std::to_string(extent.voxels) +
                              " voxels in its box; the volume changed, or the scan's table is "
                              "not this volume's)");
  }
  return Status();
}

Status CheckPart(const SkeletonJob& job, int part) {
  if (job.parts < 1 || part < 0 || part >= job.parts) {
    return Status::InvalidArgument("skeleton job part " + std::to_string(part) + " of " +
                                   std::to_string(job.parts) + ": parts are 0 to parts - 1")
        .WithField("part");
  }
  return Status();
}

// The destination; `check`: WriteSkeletons' checks of what is there (step 1
// makes them; later steps find the job's own files).
Result<SkeletonDestination> Destination(const store::Store& store, const SkeletonJob& job,
                                        bool check) {
  if (job.vectors) return SkeletonDestination();  // The store itself, checked by the caller.
  WriteSkeletonsOptions output = job.output;
  if (!check) output.overwrite = true;
  return CheckSkeletonDestination(store, output);
}

std::string ScratchFolder(const SkeletonDestination& destination) {
  return destination.prefix + std::string(kSkeletonScratchFolder) + "/";
}
std::string TableKey(const SkeletonDestination& destination, int part) {
  return ScratchFolder(destination) + "labels/" + std::to_string(part);
}
std::string PartKey(const SkeletonDestination& destination, int part) {
  return ScratchFolder(destination) + "skeletonized/" + std::to_string(part);
}

SkeletonScratchStamp Stamp(const SkeletonJob& job, int part) {
  return {static_cast<std::uint32_t>(job.parts), static_cast<std::uint32_t>(part)};
}

Result<Bytes> ReadScratch(const store::Store& store, const std::string& key) {
  CHUNKWISE_ASSIGN_OR_RETURN(std::optional<Bytes> bytes, store.Get(key));
  if (!bytes) {
    return Status::NotFound(store.Describe(key) +
                            " is missing: a part of the skeleton job has not run its earlier step");
  }
  return std::move(*bytes);
}

// Every part's table, merged.
Result<LabelTable> ReadTables(const store::Store& store, const SkeletonDestination& destination,
                              const SkeletonJob& job, const std::array<std::int64_t, 3>& shape) {
  LabelTable table;
  for (int p = 0; p < job.parts; ++p) {
    const std::string key = TableKey(destination, p);
    CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes, ReadScratch(store, key));
    CHUNKWISE_ASSIGN_OR_RETURN(const LabelTable part,
                               DecodeLabelTable(bytes, Stamp(job, p), shape, store.Describe(key)));
    MergeLabelTable(table, part);
  }
  return table;
}

void EraseScratch(store::Store& store, const SkeletonDestination& destination) {
  const Result<std::vector<std::string>> keys = store.List(ScratchFolder(destination));
  if (!keys.ok()) return;
  for (const std::string& key : *keys) (void)store.Erase(key);
}

}  // namespace

std::uint64_t CropBytes(const LabelExtent& extent) {
  LabelCrop crop;
  crop.box = extent.box;
  return core::SaturatingProduct(crop.voxels(), kCropBytesPerVoxel);
}

std::uint64_t CountSourceChunks(const SkeletonSource& source) {
  const std::array<std::int64_t, 3> grid = Grid(source);
  return static_cast<std::uint64_t>(grid[0]) * static_cast<std::uint64_t>(grid[1]) *
         static_cast<std::uint64_t>(grid[2]);
}

void MergeLabelTable(LabelTable& into, const LabelTable& from) {
  for (const auto& [label, extent] : from) {
    const auto [it, fresh] = into.try_emplace(label, extent);
    if (fresh) continue;
    LabelExtent& merged = it->second;
    for (int a = 0; a < 3; ++a) {
      merged.box.start[a] = std::min(merged.box.start[a], extent.box.start[a]);
      merged.box.stop[a] = std::max(merged.box.stop[a], extent.box.stop[a]);
    }
    merged.voxels += extent.voxels;
  }
}

Result<LabelTable> ScanChunks(const SkeletonSource& source, std::uint64_t first, std::uint64_t last,
                              core::ThreadPool* pool, core::ProgressReporter* progress,
                              const core::Cancellation* cancellation) {
  std::vector<LabelTable> tables(last > first ? last - first : 0);
  auto one = [&](std::size_t i) -> Status {
    if (cancellation != nullptr) CHUNKWISE_RETURN_IF_ERROR(cancellation->Check("scanning labels"));
    const VoxelBox box = ChunkBox(source, first + i);
    CHUNKWISE_ASSIGN_OR_RETURN(const std::vector<std::uint64_t> labels, source.read(ToRegion(box)));
    LabelVolume chunk;
    chunk.labels = labels;
    for (int a = 0; a < 3; ++a) chunk.shape[a] = box.stop[a] - box.start[a];
    for (auto& [label, extent] : FindLabels(chunk)) {
      for (int a = 0; a < 3; ++a) {
        extent.box.start[a] += box.start[a];
        extent.box.stop[a] += box.start[a];
      }
      tables[i].emplace_hint(tables[i].end(), label, extent);
    }
    if (progress != nullptr) progress->Add(BoxVoxels(box));
    return Status();
  };
  if (pool != nullptr && tables.size() > 1) {
    CHUNKWISE_RETURN_IF_ERROR(pool->ParallelFor(tables.size(), one));
  } else {
    for (std::size_t i = 0; i < tables.size(); ++i) CHUNKWISE_RETURN_IF_ERROR(one(i));
  }
  LabelTable table;
  for (const LabelTable& t : tables) MergeLabelTable(table, t);
  return table;
}

Result<LabelWork> SelectLabels(const LabelTable& table, const std::vector<std::uint64_t>& asked,
                               const std::string& where) {
  if (asked.empty()) return LabelWork(table.begin(), table.end());
  LabelWork work;
  for (std::uint64_t label : std::set<std::uint64_t>(asked.begin(), asked.end())) {
    const auto it = table.find(label);
    if (it == table.end()) {
      return Status::NotFound(where + ": label " + std::to_string(label) + " is not in the volume");
    }
    work.emplace_back(*it);
  }
  return work;
}

Result<std::vector<Skeleton>> SkeletonizeFromSource(const SkeletonSource& source,
                                                    const LabelWork& work,
                                                    const CropSkeletonOptions& options,
                                                    const std::string& where) {
  // Labels whose padded box needs more than the budget go in blocks
  // (blocked_skeleton.h); a budget too small for the smallest block is
  // refused here, before anything is read.
  const std::uint64_t budget = options.max_memory > 0 ? options.max_memory : kDefaultLabelMemory;
  std::vector<std::optional<BlockPlan>> plans(work.size());
  for (std::size_t i = 0; i < work.size(); ++i) {
    const auto& [label, extent] = work[i];
    const std::uint64_t need = CropBytes(extent);
    const std::string what = where + ": label " + std::to_string(label);
    if (need > budget) {
      LabelCrop crop;
      crop.box = extent.box;
      const std::array<std::int64_t, 3> d = crop.dims();
      CHUNKWISE_ASSIGN_OR_RETURN(
          plans[i], PlanBlocks(budget, what + " needs " + Mib(need) +
                                           " (its bounding box padded by one voxel, " +
                                           std::to_string(d[2]) + " x " + std::to_string(d[1]) +
                                           " x " + std::to_string(d[0]) + " voxels, at " +
                                           std::to_string(kCropBytesPerVoxel) + " bytes a voxel)"));
    }
    CHUNKWISE_RETURN_IF_ERROR(core::CheckAllocation(std::min(need, budget), what + "'s skeleton"));
  }
  std::vector<Skeleton> out(work.size());
  // A lone label spreads its field's lines instead.
  core::ThreadPool* field_pool = work.size() == 1 ? options.pool : nullptr;
  const LabelVolume placement{{}, source.shape, source.voxel_size, source.origin};
  SourceChunks chunks(source);
  // Labels in the order of their boxes' corners, so that those running at
  // once lie close together and share the cache's chunks.
  std::vector<std::size_t> order(work.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return work[a].second.box.start < work[b].second.box.start;
  });
  // Each thread's crop (LabelBuffers) is reused from label to label, so
  // that its mask's pages are touched once per thread, not once a label.
  CHUNKWISE_RETURN_IF_ERROR(ForEachLabel(
      work.size(), options.pool, options.cancellation, "skeletonizing " + where,
      [&](std::size_t k, LabelBuffers& buffers) -> Status {
        const std::size_t i = order[k];
        if (plans[i]) {
          CHUNKWISE_ASSIGN_OR_RETURN(
              out[i], SkeletonizeInBlocks(source, chunks, work[i].first, work[i].second, *plans[i],
                                          options.params, *buffers.workspace, where));
        } else {
          CHUNKWISE_RETURN_IF_ERROR(
              ReadCrop(source, chunks, work[i].first, work[i].second, where, buffers.crop));
          out[i] = SkeletonizeCrop(buffers.crop, placement, options.params, *buffers.workspace,
                                   field_pool);
        }
        if (options.progress != nullptr) options.progress->Add(work[i].second.voxels);
        return Status();
      }));
  return out;
}

std::vector<int> AssignOwners(const LabelWork& work, int parts,
                              const WriteSkeletonsOptions& output) {
  const bool sharded = output.output == SkeletonOutput::kPrecomputedSharded;
  const pc::ShardingSpec sharding = pc::SegmentSharding(work.size());
  // Units: labels, or shard files; each with its padded boxes' voxels.
  std::vector<std::uint64_t> unit_of(work.size());
  std::map<std::uint64_t, std::uint64_t> weight;
  for (std::size_t i = 0; i < work.size(); ++i) {
    LabelCrop crop;
    crop.box = work[i].second.box;
    unit_of[i] = sharded ? pc::LocateChunk(sharding, work[i].first).shard : work[i].first;
    weight[unit_of[i]] += crop.voxels();
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> units(weight.begin(), weight.end());
  std::stable_sort(units.begin(), units.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::uint64_t> load(static_cast<std::size_t>(std::max(parts, 1)), 0);
  std::map<std::uint64_t, int> owner;
  for (const auto& [unit, voxels] : units) {
    const auto least = std::min_element(load.begin(), load.end()) - load.begin();
    owner[unit] = static_cast<int>(least);
    load[static_cast<std::size_t>(least)] += voxels;
  }
  std::vector<int> owners(work.size());
  for (std::size_t i = 0; i < work.size(); ++i) owners[i] = owner[unit_of[i]];
  return owners;
}

std::uint64_t ScanPartVoxels(const SkeletonSource& source, int part, int parts) {
  if (parts < 1 || part < 0 || part >= parts) return 0;
  const std::uint64_t chunks = CountSourceChunks(source);
  const auto p = static_cast<std::uint64_t>(part), n = static_cast<std::uint64_t>(parts);
  std::uint64_t voxels = 0;
  for (std::uint64_t i = chunks * p / n; i < chunks * (p + 1) / n; ++i) {
    voxels += BoxVoxels(ChunkBox(source, i));
  }
  return voxels;
}

Status ScanJobPart(const SkeletonSource& source, store::Store& store, const SkeletonJob& job,
                   int part) {
  CHUNKWISE_RETURN_IF_ERROR(CheckPart(job, part));
  CHUNKWISE_ASSIGN_OR_RETURN(const SkeletonDestination destination, Destination(store, job, true));
  const std::uint64_t chunks = CountSourceChunks(source);
  const auto p = static_cast<std::uint64_t>(part), n = static_cast<std::uint64_t>(job.parts);
  CHUNKWISE_ASSIGN_OR_RETURN(
      const LabelTable table,
      ScanChunks(source, chunks * p / n, chunks * (p + 1) / n, job.skeletonize.pool,
                 job.scan_progress, job.skeletonize.cancellation));
  return store.Set(TableKey(destination, part), EncodeLabelTable(Stamp(job, part), table));
}

Status SkeletonizeJobPart(const SkeletonSource& source, store::Store& store, const SkeletonJob& job,
                          int part) {
  CHUNKWISE_RETURN_IF_ERROR(CheckPart(job, part));
  CHUNKWISE_ASSIGN_OR_RETURN(const SkeletonDestination destination, Destination(store, job, false));
  CHUNKWISE_ASSIGN_OR_RETURN(const LabelTable table,
                             ReadTables(store, destination, job, source.shape));
  CHUNKWISE_ASSIGN_OR_RETURN(const LabelWork work, SelectLabels(table, job.labels, job.where));
  const std::vector<int> owners = AssignOwners(work, job.parts, job.output);
  LabelWork owned;
  for (std::size_t i = 0; i < work.size(); ++i) {
    if (owners[i] == part) owned.push_back(work[i]);
  }
  CHUNKWISE_ASSIGN_OR_RETURN(std::vector<Skeleton> skeletons,
                             SkeletonizeFromSource(source, owned, job.skeletonize, job.where));
  SkeletonizedPart figures;
  if (!job.vectors) {
    const pc::ShardingSpec sharding = pc::SegmentSharding(work.size());
    CHUNKWISE_ASSIGN_OR_RETURN(
        const WrittenSkeletons written,
        WriteSkeletonFiles(store, destination, skeletons, job.output, sharding));
    figures.files = written.files;
    figures.bytes = written.bytes;
  }
  for (std::size_t i = 0; i < owned.size(); ++i) {
    const Skeleton& s = skeletons[i];
    figures.labels[s.label] = {owned[i].second.voxels, s.vertices.size(), s.edges.size(),
                               CableLength(s)};
  }
  if (job.vectors) figures.skeletons = std::move(skeletons);
  return store.Set(PartKey(destination, part), EncodeSkeletonizedPart(Stamp(job, part), figures));
}

namespace {

// Every part's step 2 object, gathered: the labels' figures and the
// summary's sums in label order, as one process sums them; a vectors job's
// skeletons in label order.
struct GatheredParts {
  std::map<std::uint64_t, LabelFigures> labels;
  WrittenSkeletons written;
  SkeletonJobSummary summary;
  std::map<std::uint64_t, Skeleton> skeletons;
};

Result<GatheredParts> GatherParts(const store::Store& store, const SkeletonDestination& destination,
                                  const SkeletonJob& job) {
  GatheredParts out;
  out.written.prefix = destination.prefix;
  for (int p = 0; p < job.parts; ++p) {
    const std::string key = PartKey(destination, p);
    CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes, ReadScratch(store, key));
    CHUNKWISE_ASSIGN_OR_RETURN(SkeletonizedPart part,
                               DecodeSkeletonizedPart(bytes, Stamp(job, p), store.Describe(key)));
    out.written.files += part.files;
    out.written.bytes += part.bytes;
    for (const auto& [label, figures] : part.labels) {
      if (!out.labels.emplace(label, figures).second) {
        return Status::Corruption(store.Describe(key) + ": label " + std::to_string(label) +
                                  " was skeletonized by another part too");
      }
    }
    if (job.vectors && part.skeletons.size() != part.labels.size()) {
      return Status::Corruption(store.Describe(key) + ": " + std::to_string(part.skeletons.size()) +
                                " skeletons of " + std::to_string(part.labels.size()) + " labels");
    }
    for (Skeleton& skeleton : part.skeletons) {
      const std::uint64_t label = skeleton.label;
      out.skeletons.emplace(label, std::move(skeleton));
    }
  }
  for (const auto& [label, figures] : out.labels) {
    ++out.summary.labels;
    out.summary.voxels += figures.voxels;
    out.summary.vertices += figures.vertices;
    out.summary.edges += figures.edges;
    out.summary.cable_length += figures.cable_length;
  }
  return out;
}

Result<SkeletonJobSummary> Finish(store::Store& store, const SkeletonJob& job) {
  CHUNKWISE_ASSIGN_OR_RETURN(const SkeletonDestination destination, Destination(store, job, false));
  CHUNKWISE_ASSIGN_OR_RETURN(GatheredParts gathered, GatherParts(store, destination, job));
  const pc::ShardingSpec sharding = pc::SegmentSharding(gathered.labels.size());
  std::vector<std::string> file_keys;
  for (const auto& [label, figures] : gathered.labels) {
    file_keys.push_back(SkeletonFileKey(destination, job.output, sharding, label));
  }
  WrittenSkeletons& written = gathered.written;
  CHUNKWISE_RETURN_IF_ERROR(
      FinishSkeletonOutput(store, destination, job.output, sharding, file_keys, written));
  EraseScratch(store, destination);
  SkeletonJobSummary summary = gathered.summary;
  summary.files = written.files;
  summary.bytes = written.bytes;
  summary.prefix = written.prefix;
  return summary;
}

}  // namespace

Result<SkeletonJobSummary> FinishSkeletonJob(store::Store& store, const SkeletonJob& job) {
  CHUNKWISE_RETURN_IF_ERROR(CheckPart(job, 0));
  if (job.vectors) return Status::Internal("FinishSkeletonJob of a vectors job");
  Result<SkeletonJobSummary> finished = Finish(store, job);
  // Nothing half published: what the parts wrote goes too.
  if (!finished.ok()) AbandonSkeletonJob(store, job, true);
  return finished;
}

Result<VectorSkeletonJob> FinishVectorSkeletonJob(store::Store& store, const SkeletonJob& job) {
  CHUNKWISE_RETURN_IF_ERROR(CheckPart(job, 0));
  if (!job.vectors) return Status::Internal("FinishVectorSkeletonJob of a job that is not vectors");
  const SkeletonDestination destination;
  Result<GatheredParts> gathered = GatherParts(store, destination, job);
  EraseScratch(store, destination);
  CHUNKWISE_RETURN_IF_ERROR(gathered.status());
  VectorSkeletonJob out;
  out.summary = gathered->summary;
  out.skeletons.reserve(gathered->skeletons.size());
  for (auto& [label, skeleton] : gathered->skeletons) out.skeletons.push_back(std::move(skeleton));
  return out;
}

void AbandonSkeletonJob(store::Store& store, const SkeletonJob& job, bool skeletonized) {
  const Result<SkeletonDestination> destination = Destination(store, job, false);
  if (!destination.ok()) return;
  if (skeletonized && !job.vectors) {
    LabelTable table;
    bool whole = true;
    for (int p = 0; p < job.parts && whole; ++p) {
      const Result<std::optional<Bytes>> bytes = store.Get(TableKey(*destination, p));
      whole = bytes.ok() && bytes->has_value();
      if (!whole) break;
      // The boxes are not needed here: any shape passes them.
      const std::array<std::int64_t, 3> any{INT64_MAX, INT64_MAX, INT64_MAX};
      const Result<LabelTable> part = DecodeLabelTable(**bytes, Stamp(job, p), any, "");
      whole = part.ok();
      if (whole) MergeLabelTable(table, *part);
    }
    const Result<LabelWork> work =
        whole ? SelectLabels(table, job.labels, job.where) : Result<LabelWork>(LabelWork());
    if (work.ok()) {
      const pc::ShardingSpec sharding = pc::SegmentSharding(work->size());
      std::set<std::string> keys;
      for (const auto& [label, extent] : *work) {
        keys.insert(SkeletonFileKey(*destination, job.output, sharding, label));
      }
      for (const std::string& key : keys) (void)store.Erase(key);
    }
  }
  EraseScratch(store, *destination);
}

}  // namespace chunkwise::pipelines::skeletons
