// CodecRegistry: builds codecs from their zarr v3 JSON by name.
//
// Spec: docs/formats/zarr.md, "Codec pipeline". A codec is written as
// {"name": ..., "configuration": {...}} (the configuration may be omitted) or,
// as a shorthand, a bare name string. The registry is a plain value: there is
// no global instance. Start from WithBuiltins() and Register() more codecs
// (the format layer adds `sharding_indexed`, whose factory needs the registry
// for its inner chains). Once built, a registry is safe to read from many
// threads; Register is not thread-safe.
#ifndef CHUNKWISE_CODEC_CODEC_REGISTRY_H_
#define CHUNKWISE_CODEC_CODEC_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codec/blosc_codec.h"
#include "codec/codec.h"

namespace chunkwise::codec {

// Builds a codec from its `configuration` object (an empty object when the JSON
// omitted it). Returns InvalidArgument naming the codec and field on bad values.
using CodecFactory =
    std::function<Result<std::shared_ptr<const Codec>>(const nlohmann::json& configuration)>;

// Choices that change how codecs encode but not the JSON they write: the
// zarr metadata of an array is the same whichever is chosen.
struct CodecBuildOptions {
  BloscEncoder blosc_encoder = BloscEncoder::kCBlosc;
};

class CodecRegistry {
 public:
  // An empty registry.
  CodecRegistry() = default;
  // bytes, transpose, blosc, zstd, gzip and crc32c; blosc codecs use the
  // encoder `build` names (and refuse configurations that encoder lacks).
  static CodecRegistry WithBuiltins(const CodecBuildOptions& build = {});

  // Adds `name`. InvalidArgument if the name is empty, already registered, or
  // `factory` is empty.
  Status Register(std::string name, CodecFactory factory);

  // Builds the codec `codec_json` describes. Unsupported (naming it) for an
  // unregistered name; InvalidArgument for malformed JSON or configuration.
  // Never throws, whatever the JSON holds.
  Result<std::shared_ptr<const Codec>> Create(const nlohmann::json& codec_json) const;

  bool Contains(std::string_view name) const;
  // The registered names, sorted.
  std::vector<std::string> names() const;

 private:
  std::map<std::string, CodecFactory, std::less<>> factories_;
};

}  // namespace chunkwise::codec

#endif  // CHUNKWISE_CODEC_CODEC_REGISTRY_H_
