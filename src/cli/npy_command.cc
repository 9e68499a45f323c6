// chunkwise npy: inspect .npy files and convert between .npy and raw bytes.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "chunkwise/chunkwise.h"
#include "chunkwise/io/array_file.h"
#include "chunkwise/io/file.h"
#include "chunkwise/io/npy_file.h"
#include "cli/command.h"
#include "cli/vocabulary.h"

namespace chunkwise::cli {
namespace {

struct NpyOptions {
  std::string input;
  std::string output;
  std::string dtype;
  std::string shape;
  bool raw = false;
  bool overwrite = false;
  bool json = false;
};

Status Info(const NpyOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(core::NpyHeader header, io::ReadNpyHeader(options.input));
  if (options.json) {
    nlohmann::ordered_json root;
    root["path"] = options.input;
    root["version"] = std::to_string(header.major_version) + ".0";
    root["descr"] = header.dtype.is_structured() ? header.dtype.ToDescr() : header.dtype.typestr();
    root["itemsize"] = header.dtype.itemsize();
    root["shape"] = header.shape;
    root["fortran_order"] = header.fortran_order;
    root["data_offset"] = header.data_offset;
    root["data_bytes"] = header.data_size;
    std::printf("%s\n", root.dump().c_str());
    return Status::Ok();
  }
  std::printf(
      "%s: .npy version %d.0, dtype %s (%zu bytes per element), shape (%s), %s order, %s of data "
      "at offset %llu\n",
      options.input.c_str(), header.major_version, header.dtype.ToDescr().c_str(),
      header.dtype.itemsize(), core::FormatShape(header.shape).c_str(),
      header.fortran_order ? "Fortran" : "C",
      FormatBytes(static_cast<double>(header.data_size)).c_str(),
      static_cast<unsigned long long>(header.data_offset));
  return Status::Ok();
}

Status Convert(const CommandContext& context, const NpyOptions& options) {
  CHUNKWISE_RETURN_IF_ERROR(io::CheckOutputPath(options.output, options.overwrite));
  io::ArrayFileHint hint;
  if (!options.dtype.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(hint.dtype, ParseFileDtype(options.dtype));
  }
  if (!options.shape.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(core::Shape shape, core::ParseShape(options.shape));
    hint.shape = shape;
  }
  CHUNKWISE_ASSIGN_OR_RETURN(core::NpyArray array, io::ReadArrayFile(options.input, hint));
  CHUNKWISE_RETURN_IF_ERROR(core::ToCOrder(array));
  const bool raw = WritesRaw(options.raw, options.output);
  CHUNKWISE_RETURN_IF_ERROR(io::WriteArrayFile(options.output, array, raw));
  Say(context, "wrote " + options.output +
                   (raw ? " (raw, C order, little-endian)" : " (.npy, C order)") + ": " +
                   array.dtype.ToDescr() + " shape (" + core::FormatShape(array.shape) + ")");
  return Status::Ok();
}

}  // namespace

void AddNpyCommands(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<NpyOptions>();
  CLI::App* group = app.add_subcommand("npy", "Inspect and convert .npy and raw array files");
  group->require_subcommand(1);

  CLI::App* info = group->add_subcommand("info", "Show a .npy file's header");
  info->add_option("FILE", options->input, ".npy file")->required();
  AddJsonFlag(info, options->json);
  SetAction(info, context, [options] { return Info(*options); });

  CLI::App* convert =
      group->add_subcommand("convert", "Convert .npy <-> raw; Fortran order becomes C order");
  convert->add_option("INPUT", options->input, ".npy file, or raw bytes with --dtype (and --shape)")
      ->required();
  AddOutputOption(convert, "OUTPUT", options->output,
                  "Output: .npy by extension or on stdout, raw otherwise or with --raw", context)
      ->required();
  convert->add_option("--dtype", options->dtype,
                      "dtype of a raw input: a NumPy name or typestr (uint16, <u2)");
  convert->add_option("--shape", options->shape, "Shape of a raw input; 0 in dim 0 means infer");
  convert->add_flag("--raw", options->raw, "Write raw little-endian bytes");
  convert->add_flag("--overwrite", options->overwrite, "Replace an existing output");
  SetAction(convert, context, [&context, options] { return Convert(context, *options); });
}

}  // namespace chunkwise::cli
