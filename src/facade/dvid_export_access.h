// The facade's export handles (ExportSpec, ExportShardReader,
// ExportedVolumeReader) wrapped around, and unwrapped to, the pipeline's and
// format's own (pipelines/export_spec.h, formats/dvid/arrow_shard_reader.h,
// pipelines/exported_volume_reader.h).
#ifndef CHUNKWISE_FACADE_DVID_EXPORT_ACCESS_H_
#define CHUNKWISE_FACADE_DVID_EXPORT_ACCESS_H_

#include <memory>

#include "chunkwise/facade/dvid_export.h"
#include "pipelines/export_spec.h"
#include "formats/dvid/arrow_shard_reader.h"
#include "pipelines/exported_volume_reader.h"

namespace chunkwise {

class DvidExportAccess {
 public:
  static ExportSpec Wrap(pipelines::ExportSpec spec) {
    ExportSpec wrapped;
    wrapped.held_ = std::make_shared<const pipelines::ExportSpec>(std::move(spec));
    return wrapped;
  }
  static const pipelines::ExportSpec& Held(const ExportSpec& spec) { return *spec.held_; }

  static ExportShardReader Wrap(formats::dvid::ArrowShardReader reader) {
    ExportShardReader wrapped;
    wrapped.held_ = std::make_shared<const formats::dvid::ArrowShardReader>(std::move(reader));
    return wrapped;
  }
  static const formats::dvid::ArrowShardReader& Held(const ExportShardReader& reader) {
    return *reader.held_;
  }

  static std::unique_ptr<ExportedVolumeReader> Wrap(
      std::unique_ptr<pipelines::ExportedVolumeReader> reader) {
    std::unique_ptr<ExportedVolumeReader> wrapped(new ExportedVolumeReader());
    wrapped->held_ = std::move(reader);
    return wrapped;
  }
  static const pipelines::ExportedVolumeReader& Held(const ExportedVolumeReader& reader) {
    return *reader.held_;
  }
};

}  // namespace chunkwise

#endif  // CHUNKWISE_FACADE_DVID_EXPORT_ACCESS_H_
