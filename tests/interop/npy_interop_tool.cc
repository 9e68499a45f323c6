// npy_interop_tool: the C++ half of the .npy interop test with numpy.
//
//   npy_interop_tool check DIR   reads every file listed in DIR/expected.json
//                                (written by tests/interop/python/npy_roundtrip.py)
//   npy_interop_tool write DIR   writes arrays of known contents and DIR/expected.json
//
// expected.json: {"files": [{"file", "shape", "descr", "fortran_order",
// "version", "crc32", optional "formula": "arange"}, ...], "errors":
// [{"file", "code"}, ...]}. "descr" is numpy's repr(dtype_to_descr(dtype));
// "crc32" is zlib.crc32 of the data in C order, in the file's byte order.
// Prints one "ok"/"FAIL" line per check, then "N passed, M failed"; exits 1
// on any failure.
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "chunkwise/core/npy.h"
#include "chunkwise/io/file.h"
#include "chunkwise/io/npy_file.h"
#include "core/file_io.h"

namespace chunkwise::core {
namespace {

using nlohmann::json;

struct Checks {
  int passed = 0;
  int failed = 0;
  void Expect(bool condition, const std::string& what) {
    ++(condition ? passed : failed);
    std::printf("%s %s\n", condition ? "ok  " : "FAIL", what.c_str());
  }
};

// zlib's CRC-32 (reflected polynomial 0xEDB88320), to match Python's zlib.crc32.
std::uint32_t Crc32(ByteView data) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::uint8_t byte : data) crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

Result<json> LoadJson(const std::filesystem::path& path) {
  CHUNKWISE_ASSIGN_OR_RETURN(const Bytes bytes, ReadFile(path));
  json parsed = json::parse(AsChars(bytes), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return Status::Corruption("'" + path.string() + "' is not a JSON object");
  }
  return parsed;
}

void CheckOne(const std::filesystem::path& dir, const json& entry, Checks& checks) {
  const std::string name = entry.value("file", "");
  const std::filesystem::path path = dir / name;
  Result<NpyArray> read = io::ReadNpy(path);
  Result<NpyHeader> header = io::ReadNpyHeader(path);
  checks.Expect(read.ok() && header.ok(), name + " reads: " + read.status().ToString());
  if (!read.ok() || !header.ok()) return;
  NpyArray array = std::move(read).value();
  checks.Expect(array.shape == entry.value("shape", std::vector<std::int64_t>{}), name + " shape");
  checks.Expect(array.dtype.ToDescr() == entry.value("descr", ""),
                name + " descr " + array.dtype.ToDescr() + " vs " + entry.value("descr", ""));
  checks.Expect(array.fortran_order == entry.value("fortran_order", false),
                name + " fortran_order");
  checks.Expect(header->major_version == entry.value("version", 0), name + " version");
  // Re-serializing at the file's version must give numpy's bytes exactly.
  Result<Bytes> bytes =
      SerializeNpyHeader(array.dtype, array.shape, array.fortran_order, header->major_version);
  Result<Bytes> file = ReadFile(path);
  if (bytes.ok()) bytes->insert(bytes->end(), array.data.begin(), array.data.end());
  checks.Expect(bytes.ok() && file.ok() && *bytes == *file,
                name + " re-serializes byte-identically");
  const Status to_c = ToCOrder(array);
  checks.Expect(to_c.ok() && Crc32(array.data) == entry.value("crc32", 0u),
                name + " C-order crc32");
}

void CheckError(const std::filesystem::path& dir, const json& entry, Checks& checks) {
  const std::string name = entry.value("file", "");
  const Result<NpyArray> read = io::ReadNpy(dir / name);
  const std::string expected = entry.value("code", "");
  checks.Expect(!read.ok() && StatusCodeName(read.status().code()) == expected,
                name + " fails with " + expected + ": " + read.status().ToString());
}

int Check(const std::filesystem::path& dir) {
  Result<json> expected = LoadJson(dir / "expected.json");
  if (!expected.ok()) {
    std::fprintf(stderr, "%s\n", expected.status().ToString().c_str());
    return 2;
  }
  Checks checks;
  for (const json& entry : expected->value("files", json::array())) CheckOne(dir, entry, checks);
  for (const json& entry : expected->value("errors", json::array())) CheckError(dir, entry, checks);
  std::printf("%d passed, %d failed\n", checks.passed, checks.failed);
  return checks.failed == 0 && checks.passed > 0 ? 0 : 1;
}

// --- write mode -------------------------------------------------------------

std::uint16_t HalfFromSmallInt(std::uint32_t i) {  // Exact for i < 2048.
  if (i == 0) return 0;
  int exponent = 31 - __builtin_clz(i);
  const std::uint32_t mantissa = (i << (10 - exponent)) & 0x3FF;
  return static_cast<std::uint16_t>(((exponent + 15) << 10) | mantissa);
}

// np.arange(count).astype(type), little-endian.
Bytes Arange(DataType type, std::size_t count) {
  Bytes out;
  for (std::size_t i = 0; i < count; ++i) {
    const auto v = static_cast<std::uint64_t>(i);
    switch (type.id()) {
      case DataTypeId::kBool:
        AppendLittleEndian<std::uint8_t>(i != 0, out);
        break;
      case DataTypeId::kFloat16:
        AppendLittleEndian(HalfFromSmallInt(static_cast<std::uint32_t>(i)), out);
        break;
      case DataTypeId::kFloat32:
        AppendLittleEndian(std::bit_cast<std::uint32_t>(float(i)), out);
        break;
      case DataTypeId::kFloat64:
        AppendLittleEndian(std::bit_cast<std::uint64_t>(double(i)), out);
        break;
      case DataTypeId::kComplex64:
        AppendLittleEndian(std::bit_cast<std::uint32_t>(float(i)), out);
        AppendLittleEndian<std::uint32_t>(0, out);
        break;
      case DataTypeId::kComplex128:
        AppendLittleEndian(std::bit_cast<std::uint64_t>(double(i)), out);
        AppendLittleEndian<std::uint64_t>(0, out);
        break;
      default:
        for (std::size_t b = 0; b < type.size(); ++b)
          out.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
    }
  }
  return out;
}

struct Written {
  std::string file;
  NpyArray array;
  bool arange;
};

std::size_t Count(const std::vector<std::int64_t>& shape) {
  std::size_t n = 1;
  for (std::int64_t d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

NpyArray ArangeArray(DataType type, Endian endian, std::vector<std::int64_t> shape, bool fortran) {
  NpyArray array;
  array.dtype = NpyDtype::FromDataType(type, endian);
  array.data = Arange(type, Count(shape));
  array.shape = std::move(shape);
  ConvertByteOrder(array.dtype.WithByteOrder(Endian::kLittle), endian, array.data);
  if (fortran) CHUNKWISE_CHECK(ToFortranOrder(array).ok());
  return array;
}

NpyArray PatternArray(std::string_view descr, std::vector<std::int64_t> shape, bool fortran) {
  NpyArray array;
  array.dtype = NpyDtype::FromDescr(descr).value();
  array.shape = std::move(shape);
  array.fortran_order = fortran;
  const std::size_t size = Count(array.shape) * array.dtype.itemsize();
  for (std::size_t i = 0; i < size; ++i)
    array.data.push_back(static_cast<std::uint8_t>(i * 13 + 5));
  return array;
}

std::vector<Written> ArraysToWrite() {
  std::vector<Written> out;
  for (const DataType type : DataType::All()) {
    for (const Endian endian : {Endian::kLittle, Endian::kBig}) {
      const std::string stem =
          std::string(type.zarr_name()) + (endian == Endian::kBig ? "_be" : "_le");
      out.push_back({stem + "_c.npy", ArangeArray(type, endian, {3, 4}, false), true});
      out.push_back({stem + "_f.npy", ArangeArray(type, endian, {2, 3, 4}, true), true});
    }
  }
  const DataType f8(DataTypeId::kFloat64);
  out.push_back({"scalar.npy", ArangeArray(f8, Endian::kLittle, {}, false), true});
  out.push_back({"empty.npy", ArangeArray(f8, Endian::kBig, {0, 5}, false), true});
  out.push_back(
      {"vector.npy", ArangeArray(DataType(DataTypeId::kInt32), Endian::kBig, {7}, false), true});
  out.push_back({"strings.npy", PatternArray("'|S5'", {4}, false), false});
  out.push_back({"unicode.npy", PatternArray("'>U3'", {2, 2}, true), false});
  out.push_back({"datetime.npy", PatternArray("'<M8[ns]'", {3}, false), false});
  out.push_back({"timedelta.npy", PatternArray("'>m8[10s]'", {2, 2}, false), false});
  out.push_back({"void.npy", PatternArray("'|V6'", {3}, false), false});
  out.push_back(
      {"record.npy",
       PatternArray("[('a', '<i4'), ('', '|V4'), ('b', '>f8', (3, 2)), ('c', [('x', '|u1'),"
                    " ('y', [('z', '<c8')], (2,))]), (('Title', 'd'), '<M8[us]')]",
                    {2, 3}, true),
       false});
  out.push_back(
      {"quotes.npy", PatternArray("[(\"it's\", '<u2'), ('a\"b\\\\', '|u1')]", {2}, false), false});
  out.push_back({"latin1.npy", PatternArray("[('\\xe9t\\xe9', '<f4')]", {2}, false), false});
  out.push_back({"utf8_v3.npy",
                 PatternArray("[('\\u03c0', '<f4'), ('\\U0001f600', '|i1')]", {2}, false), false});
  std::string wide = "[";
  for (int i = 0; i < 4000; ++i) wide += "('field_" + std::to_string(i) + "', '<u1'), ";
  out.push_back({"wide_v2.npy", PatternArray(wide + "]", {2}, false), false});
  return out;
}

int Write(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  json files = json::array();
  for (Written& written : ArraysToWrite()) {
    const Status status = io::WriteNpy(dir / written.file, written.array);
    if (!status.ok()) {
      std::fprintf(stderr, "%s\n", status.ToString().c_str());
      return 1;
    }
    const Result<NpyHeader> header = io::ReadNpyHeader(dir / written.file);
    CHUNKWISE_CHECK(header.ok());
    json entry = {{"file", written.file},
                  {"shape", written.array.shape},
                  {"descr", written.array.dtype.ToDescr()},
                  {"fortran_order", written.array.fortran_order},
                  {"version", header->major_version}};
    CHUNKWISE_CHECK(ToCOrder(written.array).ok());
    entry["crc32"] = Crc32(written.array.data);
    if (written.arange) entry["formula"] = "arange";
    files.push_back(std::move(entry));
  }
  const std::string text = json{{"files", files}}.dump(1);
  const Status status = io::WriteFile(dir / "expected.json", AsBytes(text));
  if (!status.ok()) std::fprintf(stderr, "%s\n", status.ToString().c_str());
  std::printf("wrote %zu arrays to %s\n", files.size(), dir.c_str());
  return status.ok() ? 0 : 1;
}

}  // namespace
}  // namespace chunkwise::core

int main(int argc, char** argv) {
  const std::string mode = argc == 3 ? argv[1] : "";
  if (mode == "check") return chunkwise::core::Check(argv[2]);
  if (mode == "write") return chunkwise::core::Write(argv[2]);
  std::fprintf(stderr, "usage: npy_interop_tool check|write DIR\n");
  return 2;
}
