// chunkwise codec / crc32c: encode, decode and measure with the codec registry.
#include <cstdio>

#include "chunkwise/chunkwise.h"
#include "chunkwise/io/array_file.h"
#include "chunkwise/io/file.h"
#include "cli/command.h"
#include "cli/vocabulary.h"

namespace chunkwise::cli {
namespace {

// Decoding refuses to produce more than this unless --max-bytes says otherwise.
constexpr std::uint64_t kDefaultMaxDecodedBytes = std::uint64_t{4} << 30;

struct CodecOptions {
  std::string codec;
  std::vector<std::string> codecs;
  std::size_t typesize = 1;
  std::uint64_t max_bytes = kDefaultMaxDecodedBytes;
  std::string input;
  std::string output;
  std::string dtype;
  std::size_t chunk_bytes = std::size_t{1} << 20;
  int repetitions = 3;
  bool overwrite = false;
  std::vector<std::string> files;
};

Status ListCodecs() {
  for (const std::string& name : CodecNames()) std::printf("%s\n", name.c_str());
  return Status::Ok();
}

Status Encode(const CommandContext& context, const CodecOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.output, options.overwrite));
  CHUNKWISE_ASSIGN_OR_RETURN(const std::string chain, CodecsJson(options.codec, options.typesize));
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes input, ReadLocalFile(options.input));
  Result<Bytes> encoded = EncodeBytes(options.codec, options.typesize, input);
  if (!encoded.ok()) return encoded.status().WithContext("encoding " + options.input);
  CHUNKWISE_RETURN_IF_ERROR(io::WriteFile(options.output, *encoded));
  Say(context, "wrote " + options.output + ": " + FormatBytes(static_cast<double>(input.size())) +
                   " -> " + FormatBytes(static_cast<double>(encoded->size())) + " with " + chain);
  return Status::Ok();
}

Status Decode(const CommandContext& context, const CodecOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.output, options.overwrite));
  CHUNKWISE_RETURN_IF_ERROR(CodecsJson(options.codec, options.typesize).status());
  CHUNKWISE_ASSIGN_OR_RETURN(Bytes input, ReadLocalFile(options.input));
  Result<Bytes> decoded = DecodeBytes(options.codec, options.typesize, input, options.max_bytes);
  if (!decoded.ok()) return decoded.status().WithContext("decoding " + options.input);
  CHUNKWISE_RETURN_IF_ERROR(io::WriteFile(options.output, *decoded));
  Say(context,
      "wrote " + options.output + ": " + FormatBytes(static_cast<double>(decoded->size())));
  return Status::Ok();
}

Status Measure(const CodecOptions& options) {
  io::ArrayFileHint hint;
  if (!options.dtype.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(hint.dtype, ParseFileDtype(options.dtype));
  }
  CHUNKWISE_ASSIGN_OR_RETURN(core::NpyArray array, io::ReadArrayFile(options.input, hint));
  std::printf("%-26s %8s %12s %12s %12s\n", "codec", "ratio", "encoded", "encode MB/s",
              "decode MB/s");
  for (const std::string& spec : options.codecs) {
    CHUNKWISE_ASSIGN_OR_RETURN(const CodecMeasurement figures,
                               MeasureCodecs(spec, array.dtype.itemsize(), array.data,
                                             options.chunk_bytes, options.repetitions));
    std::printf("%-26s %8.2f %12s %12.0f %12.0f\n", spec.c_str(), figures.ratio,
                FormatBytes(static_cast<double>(figures.encoded_bytes)).c_str(),
                figures.encode_bytes_per_second / 1e6, figures.decode_bytes_per_second / 1e6);
  }
  return Status::Ok();
}

Status PrintCrc32c(const CodecOptions& options) {
  for (const std::string& file : options.files) {
    CHUNKWISE_ASSIGN_OR_RETURN(Bytes data, ReadLocalFile(file));
    std::printf("%08x  %s\n", Crc32cOf(data), file.c_str());
  }
  return Status::Ok();
}

void AddCodecOption(CLI::App* command, CodecOptions& options, CommandContext& context) {
  command
      ->add_option(
          "--codec", options.codec,
          "zstd[:LEVEL] | gzip[:LEVEL] | blosc[:CNAME[:CLEVEL[:SHUFFLE]]] | crc32c | none; "
          "CNAME lz4det: lz4 by the deterministic encoder")
      ->required();
  command
      ->add_option("--typesize", options.typesize, "Element size in bytes (blosc shuffles by it)")
      ->capture_default_str();
  command->add_option("INPUT", options.input, "Input file")->required();
  AddOutputOption(command, "OUTPUT", options.output, "Output file", context)->required();
  command->add_flag("--overwrite", options.overwrite, "Replace an existing output");
}

}  // namespace

void AddCodecCommands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<CodecOptions>();
  CLI::App* group = app.add_subcommand("codec", "Encode, decode and measure with zarr v3 codecs");
  group->require_subcommand(1);

  CLI::App* list = group->add_subcommand("list", "List the registered codecs by zarr name");
  SetAction(list, context, [] { return ListCodecs(); });

  CLI::App* encode = group->add_subcommand("encode", "Encode a file's bytes");
  AddCodecOption(encode, *options, context);
  SetAction(encode, context, [&context, options] { return Encode(context, *options); });

  CLI::App* decode = group->add_subcommand("decode", "Decode a file's bytes");
  AddCodecOption(decode, *options, context);
  decode
      ->add_option("--max-bytes", options->max_bytes, "Refuse to decode more than this many bytes")
      ->capture_default_str();
  SetAction(decode, context, [&context, options] { return Decode(context, *options); });

  CLI::App* measure =
      group->add_subcommand("measure", "Ratio and throughput of codecs on an array file");
  measure->add_option("--input", options->input, "Array: .npy, or raw with --dtype")->required();
  measure->add_option("--dtype", options->dtype,
                      "dtype of a raw input: a NumPy name or typestr (uint16, <u2)");
  measure->add_option("--codec", options->codecs, "A codec shorthand; repeat to compare")
      ->required();
  measure->add_option("--chunk-bytes", options->chunk_bytes, "Chunk size")->capture_default_str();
  measure->add_option("--repetitions", options->repetitions, "Runs; the median is shown")
      ->capture_default_str();
  SetAction(measure, context, [options] { return Measure(*options); });

  CLI::App* crc = app.add_subcommand("crc32c", "Print the CRC32C (Castagnoli) of files");
  crc->add_option("FILE", options->files, "Files")->required();
  SetAction(crc, context, [options] { return PrintCrc32c(*options); });
}

}  // namespace chunkwise::cli
