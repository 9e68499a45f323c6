// chunkwise npy: inspect .npy files and convert between .npy and raw bytes.
#include <cstdio>

#include "chunkwise/core/file_io.h"
#include "chunkwise/core/index.h"
#include "chunkwise/core/npy.h"
#include "chunkwise/io/array_file.h"
#include "chunkwise/io/file.h"
#include "chunkwise/io/npy_file.h"
#include "cli/command.h"

namespace chunkwise::cli {
namespace {

struct NpyOptions {
  std::string input;
  std::string output;
  std::string dtype;
  std::string shape;
  bool raw = false;
  bool overwrite = false;
};

Status Info(const NpyOptions& options) {
  CHUNKWISE_ASSIGN_OR_RETURN(core::NpyHeader header, io::ReadNpyHeader(options.input));
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
    CHUNKWISE_ASSIGN_OR_RETURN(hint.dtype, core::NpyDtype::FromTypestr(options.dtype));
  }
  if (!options.shape.empty()) {
    CHUNKWISE_ASSIGN_OR_RETURN(core::Shape shape, core::ParseShape(options.shape));
    hint.shape = shape;
  }
  CHUNKWISE_ASSIGN_OR_RETURN(core::NpyArray array, io::ReadArrayFile(options.input, hint));
  CHUNKWISE_RETURN_IF_ERROR(core::ToCOrder(array));
  const bool raw = options.raw || !io::HasNpyExtension(options.output);
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
  SetAction(info, context, [options] { return Info(*options); });

  CLI::App* convert =
      group->add_subcommand("convert", "Convert .npy <-> raw; Fortran order becomes C order");
  convert->add_option("INPUT", options->input, ".npy file, or raw bytes with --dtype (and --shape)")
      ->required();
  convert
      ->add_option("OUTPUT", options->output,
                   "Output: .npy by extension, raw otherwise or with --raw")
      ->required();
  convert->add_option("--dtype", options->dtype, "NumPy typestr of a raw input, e.g. <u2");
  convert->add_option("--shape", options->shape, "Shape of a raw input; 0 in dim 0 means infer");
  convert->add_flag("--raw", options->raw, "Write raw little-endian bytes");
  convert->add_flag("--overwrite", options->overwrite, "Replace an existing output");
  SetAction(convert, context, [&context, options] { return Convert(context, *options); });
}

}  // namespace chunkwise::cli
