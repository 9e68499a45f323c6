// ImportVolumeAsZarrArray (`chunkwise import`): TIFF pages as z slabs,
// progress and cancellation, whole output or none, the existing-output rule,
// the .npy door, N5 datasets by URL (blocks written byte by byte into a
// memory:// store) and zarr arrays as sources. The TIFF and .npy inputs are written byte by byte
// here (baseline TIFF: one uncompressed strip per page), so that the test needs chunkwise.h alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <fstream>

#include "api_test_support.h"

namespace chunkwise {
namespace {

using api_test::At16;
using api_test::FreshDirectory;
using api_test::Message;
using testing::HasSubstr;

void Put16(Bytes& out, std::uint16_t value) {
  out.push_back(static_cast<std::uint8_t>(value));
  out.push_back(static_cast<std::uint8_t>(value >> 8));
}
void Put32(Bytes& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}
void Patch32(Bytes& out, std::size_t at, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
}

// The uint16 value of page z at (y, x).
std::uint16_t ValueAt(std::size_t z, std::size_t y, std::size_t x) {
  return static_cast<std::uint16_t>(1000 * z + 10 * y + x + 1);
}

// A little-endian baseline TIFF of `pages` uint16 pages of height x width;
// `description` (the first page's ImageDescription) where not empty.
void WriteTiff(const std::filesystem::path& path, std::size_t pages, std::uint16_t height,
               std::uint16_t width, std::size_t first_z = 0, const std::string& description = "") {
  Bytes out = {'I', 'I', 42, 0};
  std::size_t next_pointer = out.size();
  Put32(out, 0);
  for (std::size_t z = 0; z < pages; ++z) {
    const auto strip = static_cast<std::uint32_t>(out.size());
    for (std::size_t y = 0; y < height; ++y) {
      for (std::size_t x = 0; x < width; ++x) Put16(out, ValueAt(first_z + z, y, x));
    }
    const auto text = static_cast<std::uint32_t>(out.size());
    const bool described = z == 0 && !description.empty();
    if (described) {
      out.insert(out.end(), description.begin(), description.end());
      out.push_back(0);
      if (out.size() % 2 != 0) out.push_back(0);
    }
    Patch32(out, next_pointer, static_cast<std::uint32_t>(out.size()));
    const std::uint32_t bytes = 2u * height * width;
    // tag, type (2 ASCII, 3 SHORT, 4 LONG), count, value (an ASCII's offset)
    std::vector<std::array<std::uint32_t, 4>> entries = {
        {256, 3, 1, width}, {257, 3, 1, height}, {258, 3, 1, 16}, {259, 3, 1, 1},
        {262, 3, 1, 1},     {273, 4, 1, strip},  {277, 3, 1, 1},  {278, 3, 1, height},
        {279, 4, 1, bytes}, {339, 3, 1, 1}};
    if (described) {  // Tags in ascending order: 270 after 262.
      entries.insert(entries.begin() + 5,
                     {270, 2, static_cast<std::uint32_t>(description.size() + 1), text});
    }
    Put16(out, static_cast<std::uint16_t>(entries.size()));
    for (const auto& [tag, type, count, value] : entries) {
      Put16(out, static_cast<std::uint16_t>(tag));
      Put16(out, static_cast<std::uint16_t>(type));
      Put32(out, count);
      if (type == 3) {
        Put16(out, static_cast<std::uint16_t>(value));
        Put16(out, 0);
      } else {
        Put32(out, value);
      }
    }
    next_pointer = out.size();
    Put32(out, 0);
  }
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size()));
}

// A 2x3 uint16 .npy file holding 40, 41, ... 45.
void WriteNpy16(const std::filesystem::path& path) {
  std::string header = "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }";
  header.resize(128 - 10 - 1, ' ');
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size());
  file += '\0';
  file += header;
  const Bytes data = api_test::Ramp16(6, 40);
  file.append(reinterpret_cast<const char*>(data.data()), data.size());
  std::ofstream(path, std::ios::binary).write(file.data(), file.size());
}

bool HoldsNoFiles(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) return true;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
    if (entry.is_regular_file()) return false;
  }
  return true;
}

ZarrArraySpec Spec(core::Shape chunks, std::optional<core::Shape> shards = std::nullopt) {
  ZarrArraySpec spec;
  spec.chunks = std::move(chunks);
  spec.shards = std::move(shards);
  return spec;
}

class Counting : public ProgressObserver {
 public:
  void OnStart(std::string_view, std::uint64_t total, std::string_view) override {
    started_with = total;
  }
  void OnProgress(std::string_view, std::uint64_t) override {
    if (cancel_context != nullptr) cancel_context->Cancel();
  }
  void OnFinish(std::string_view, std::uint64_t done) override { finished_with = done; }
  std::atomic<std::uint64_t> started_with{0}, finished_with{0};
  Context* cancel_context = nullptr;
};

TEST(VolumeImportApi, TiffPagesBecomeZSlabsValueForValue) {
  const std::filesystem::path dir = FreshDirectory("volume_pages");
  WriteTiff(dir / "stack.tif", 5, 6, 7);
  Counting observer;
  Context context({.threads = 2});
  Result<VolumeImport> imported =
      ImportVolumeAsZarrArray(context, (dir / "stack.tif").string(), (dir / "out.zarr").string(),
                              Spec({2, 3, 4}, core::Shape{4, 6, 8}), {}, {.observer = &observer});
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ(imported->kind, VolumeSourceKind::kTiff);
  EXPECT_FALSE(imported->ome);
  EXPECT_EQ(imported->array_url, (dir / "out.zarr").string());
  EXPECT_EQ(observer.started_with, 5u * 6 * 7 * 2);
  EXPECT_EQ(observer.finished_with, 5u * 6 * 7 * 2);
  Result<ZarrArray> opened = OpenZarrArray(context, (dir / "out.zarr").string());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ(opened->metadata().shape, (core::Shape{5, 6, 7}));
  EXPECT_EQ(opened->metadata().data_type, *ParseDataType("uint16"));
  Result<Bytes> all = ReadRegion(context, *opened, core::Region({0, 0, 0}, {5, 6, 7}));
  ASSERT_TRUE(all.ok());
  for (std::size_t z = 0; z < 5; ++z) {
    for (std::size_t y = 0; y < 6; ++y) {
      for (std::size_t x = 0; x < 7; ++x) {
        ASSERT_EQ(At16(*all, (z * 6 + y) * 7 + x), ValueAt(z, y, x)) << z << "," << y << "," << x;
      }
    }
  }
}

TEST(VolumeImportApi, AFolderOfPlanesInNaturalOrder) {
  const std::filesystem::path dir = FreshDirectory("volume_folder");
  std::filesystem::create_directories(dir / "planes");
  for (std::size_t z = 0; z < 11; ++z) {
    WriteTiff(dir / "planes" / ("z" + std::to_string(z) + ".tiff"), 1, 2, 3, z);
  }
  Context context;
  Result<VolumeImport> imported = ImportVolumeAsZarrArray(
      context, (dir / "planes").string(), (dir / "out.zarr").string(), Spec({4, 2, 3}));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  Result<Bytes> all = ReadRegion(context, imported->array, core::Region({0, 0, 0}, {11, 2, 3}));
  ASSERT_TRUE(all.ok());
  for (std::size_t z = 0; z < 11; ++z) EXPECT_EQ(At16(*all, z * 6 + 5), ValueAt(z, 1, 2)) << z;
}

TEST(VolumeImportApi, CancelledMidWayLeavesNothing) {
  const std::filesystem::path dir = FreshDirectory("volume_cancel");
  WriteTiff(dir / "stack.tif", 8, 4, 4);
  Counting observer;
  Context context({.threads = 1});
  observer.cancel_context = &context;  // Cancels once the first slab is being written.
  const std::filesystem::path out = dir / "out.zarr";
  Result<VolumeImport> imported =
      ImportVolumeAsZarrArray(context, (dir / "stack.tif").string(), out.string(),
                              Spec({1, 4, 4}, core::Shape{2, 4, 4}), {}, {.observer = &observer});
  EXPECT_EQ(imported.status().code(), StatusCode::kCancelled) << imported.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(out)) << out << ": the import made it, so it goes too";
}

TEST(VolumeImportApi, PlanesOfAnotherShapeFailBeforeAnythingIsWritten) {
  const std::filesystem::path dir = FreshDirectory("volume_mixed");
  std::filesystem::create_directories(dir / "planes");
  WriteTiff(dir / "planes" / "p1.tif", 1, 4, 4);
  WriteTiff(dir / "planes" / "p2.tif", 1, 4, 5);
  Context context;
  const std::filesystem::path out = dir / "out.zarr";
  Result<VolumeImport> imported =
      ImportVolumeAsZarrArray(context, (dir / "planes").string(), out.string(), Spec({1, 4, 4}));
  EXPECT_EQ(imported.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(imported.status()), HasSubstr("p2.tif"));
  EXPECT_THAT(Message(imported.status()), HasSubstr("plane 1"));
  EXPECT_TRUE(HoldsNoFiles(out));
}

TEST(VolumeImportApi, AnExistingOutputIsReplacedOnlyWithOverwrite) {
  const std::filesystem::path dir = FreshDirectory("volume_existing");
  WriteTiff(dir / "a.tif", 2, 3, 3);
  Context context;
  const std::string out = (dir / "out.zarr").string();
  ASSERT_TRUE(
      ImportVolumeAsZarrArray(context, (dir / "a.tif").string(), out, Spec({1, 3, 3})).ok());
  Result<VolumeImport> again =
      ImportVolumeAsZarrArray(context, (dir / "a.tif").string(), out, Spec({1, 3, 3}));
  EXPECT_EQ(again.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(again.status()), HasSubstr("overwrite"));
  // The refusal erased nothing: the first import is still there.
  Result<ZarrArray> first = OpenZarrArray(context, out);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  WriteTiff(dir / "b.tif", 3, 3, 3, 7);
  Result<VolumeImport> replaced = ImportVolumeAsZarrArray(context, (dir / "b.tif").string(), out,
                                                          Spec({1, 3, 3}), {.overwrite = true});
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  EXPECT_EQ(replaced->array.metadata().shape, (core::Shape{3, 3, 3}));
  Result<Bytes> corner = ReadRegion(context, replaced->array, core::Region({0, 0, 0}, {1, 1, 1}));
  ASSERT_TRUE(corner.ok());
  EXPECT_EQ(At16(*corner, 0), ValueAt(7, 0, 0));
}

constexpr const char* kOmeXml =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><OME><Image ID=\"Image:0\"><Pixels "
    "ID=\"Pixels:0\" SizeZ=\"3\" SizeC=\"1\" SizeT=\"1\" PhysicalSizeX=\"0.25\" "
    "PhysicalSizeY=\"0.25\" PhysicalSizeZ=\"1.5\" PhysicalSizeZUnit=\"nm\"/></Image></OME>";

TEST(VolumeImportApi, AnOmeTiffBecomesAnOmeZarrImageWithItsScale) {
  const std::filesystem::path dir = FreshDirectory("volume_ome");
  WriteTiff(dir / "a.ome.tif", 3, 4, 5, 0, kOmeXml);
  Context context;
  const std::string out = (dir / "out.zarr").string();
  Result<VolumeImport> imported =
      ImportVolumeAsZarrArray(context, (dir / "a.ome.tif").string(), out, Spec({1, 4, 5}));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_TRUE(imported->ome);
  EXPECT_EQ(imported->array_url, out + "/0");
  std::ifstream group_file(dir / "out.zarr" / "zarr.json");
  const nlohmann::json group = nlohmann::json::parse(group_file);
  EXPECT_EQ(group["node_type"], "group");
  const nlohmann::json& image = group["attributes"]["ome"]["multiscales"][0];
  EXPECT_EQ(image["datasets"][0]["path"], "0");
  EXPECT_EQ(image["datasets"][0]["coordinateTransformations"][0]["scale"],
            nlohmann::json::array({1.5, 0.25, 0.25}));
  EXPECT_EQ(image["axes"][0]["unit"], "nanometer");
  EXPECT_EQ(image["axes"][2]["unit"], "micrometer");  // OME's default unit.
  Result<ZarrArray> level = OpenZarrArray(context, out + "/0");
  ASSERT_TRUE(level.ok()) << level.status().ToString();
  Result<Bytes> last = ReadRegion(context, *level, core::Region({2, 3, 4}, {3, 4, 5}));
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(At16(*last, 0), ValueAt(2, 3, 4));
  // OME-Zarr 0.5 is zarr v3: v2 is refused before anything is written.
  ZarrArraySpec v2 = Spec({1, 4, 5});
  v2.zarr_format = 2;
  const std::filesystem::path out2 = dir / "v2.zarr";
  const Status refused =
      ImportVolumeAsZarrArray(context, (dir / "a.ome.tif").string(), out2.string(), v2).status();
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(refused), HasSubstr("a.ome.tif"));
  EXPECT_TRUE(HoldsNoFiles(out2));
}

TEST(VolumeImportApi, NpyGoesThroughTheNpyImport) {
  const std::filesystem::path dir = FreshDirectory("volume_npy");
  WriteNpy16(dir / "a.npy");
  Context context;
  Result<VolumeImport> imported = ImportVolumeAsZarrArray(
      context, (dir / "a.npy").string(), (dir / "out.zarr").string(), Spec({1, 3}));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ(imported->kind, VolumeSourceKind::kNpy);
  Result<Bytes> all = ReadRegion(context, imported->array, core::Region({0, 0}, {2, 3}));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(At16(*all, 5), 45);
}

TEST(VolumeImportApi, AFailedNpyImportLeavesNoDirectoryItMade) {
  const std::filesystem::path dir = FreshDirectory("volume_npy_rank");
  WriteNpy16(dir / "a.npy");
  Context context;
  const std::filesystem::path out = dir / "out.zarr";
  Result<VolumeImport> imported =
      ImportVolumeAsZarrArray(context, (dir / "a.npy").string(), out.string(), Spec({1}));
  EXPECT_EQ(imported.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(imported.status().field(), "chunk_shape");
  EXPECT_FALSE(std::filesystem::exists(out)) << out;
  // A directory that was there before stays, empty as it was.
  std::filesystem::create_directories(out);
  imported = ImportVolumeAsZarrArray(context, (dir / "a.npy").string(), out.string(), Spec({1}));
  EXPECT_EQ(imported.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(std::filesystem::is_directory(out)) << out;
}

TEST(VolumeImportApi, SourcesAreKnownByName) {
  const std::filesystem::path dir = FreshDirectory("volume_detect");
  std::ofstream(dir / "notes.txt") << "x";
  EXPECT_EQ(DetectVolumeSource((dir / "absent.tif").string()).status().code(),
            StatusCode::kNotFound);
  const Status text = DetectVolumeSource((dir / "notes.txt").string()).status();
  EXPECT_EQ(text.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(text), HasSubstr("notes.txt"));
  std::ofstream(dir / "A.TIF") << "x";
  EXPECT_EQ(*DetectVolumeSource((dir / "A.TIF").string()), VolumeSourceKind::kTiff);
  EXPECT_EQ(*DetectVolumeSource(dir.string()), VolumeSourceKind::kTiff);
  std::filesystem::create_directories(dir / "ds.n5");
  std::ofstream(dir / "ds.n5" / "attributes.json") << "{}";
  EXPECT_EQ(*DetectVolumeSource((dir / "ds.n5").string()), VolumeSourceKind::kN5);
  EXPECT_EQ(DetectVolumeSource("s3://bucket/ds.n5").status().code(), StatusCode::kInvalidArgument);
}

// N5 dimensions [3, 4, 5] (x, y, z) in blocks [2, 2, 2], uint16 value
// 100·z + 10·y + x, edge blocks truncated, written into `store` by hand.
void WriteN5(store::Store& store) {
  const auto big = [](Bytes& out, std::uint64_t value, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  };
  const std::string attributes =
      R"({"dimensions": [3, 4, 5], "blockSize": [2, 2, 2], "dataType": "uint16",
          "compression": {"type": "raw"}, "unit": "nm"})";
  ASSERT_TRUE(store.Set("attributes.json", Bytes(attributes.begin(), attributes.end())).ok());
  const std::array<int, 3> dims = {3, 4, 5};
  for (int bz = 0; bz < 3; ++bz) {
    for (int by = 0; by < 2; ++by) {
      for (int bx = 0; bx < 2; ++bx) {
        const int sx = std::min(2, dims[0] - 2 * bx), sy = std::min(2, dims[1] - 2 * by),
                  sz = std::min(2, dims[2] - 2 * bz);
        Bytes block;
        big(block, 0, 2);
        big(block, 3, 2);
        for (const int s : {sx, sy, sz}) big(block, s, 4);
        for (int z = 0; z < sz; ++z) {
          for (int y = 0; y < sy; ++y) {
            for (int x = 0; x < sx; ++x) {
              big(block, 100 * (2 * bz + z) + 10 * (2 * by + y) + 2 * bx + x, 2);
            }
          }
        }
        const std::string key =
            std::to_string(bx) + "/" + std::to_string(by) + "/" + std::to_string(bz);
        ASSERT_TRUE(store.Set(key, block).ok());
      }
    }
  }
}

TEST(VolumeImportApi, AnN5DatasetByUrlIsItsDimensionsReversed) {
  Context context({.threads = 2});
  Result<std::shared_ptr<store::Store>> opened =
      OpenStore(context, "memory://n5-source", context.store_options(true));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::shared_ptr<store::Store> source = *opened;
  WriteN5(*source);
  Counting observer;
  Result<VolumeImport> imported =
      ImportVolumeAsZarrArray(context, "memory://n5-source", "memory://n5-out",
                              Spec({}, core::Shape{4, 4, 4}), {}, {.observer = &observer});
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ(imported->kind, VolumeSourceKind::kN5);
  EXPECT_EQ(imported->array.metadata().shape, (core::Shape{5, 4, 3}));
  EXPECT_EQ(imported->array.metadata().attributes, nlohmann::json({{"unit", "nm"}}));
  EXPECT_EQ(observer.finished_with, 5u * 4 * 3 * 2);
  Result<Bytes> all = ReadRegion(context, imported->array, core::Region({0, 0, 0}, {5, 4, 3}));
  ASSERT_TRUE(all.ok());
  for (std::size_t z = 0; z < 5; ++z) {
    for (std::size_t y = 0; y < 4; ++y) {
      for (std::size_t x = 0; x < 3; ++x) {
        ASSERT_EQ(At16(*all, (z * 4 + y) * 3 + x), 100 * z + 10 * y + x) << z << y << x;
      }
    }
  }
  // Something there: refused without overwrite, and kept.
  const Status again =
      ImportVolumeAsZarrArray(context, "memory://n5-source", "memory://n5-out", Spec({})).status();
  EXPECT_NE(again.code(), StatusCode::kOk);
  EXPECT_TRUE(OpenZarrArray(context, "memory://n5-out").ok());
}

TEST(VolumeImportApi, AShortN5BlockFailsNamingItAndLeavesNothing) {
  Context context({.threads = 1});
  Result<std::shared_ptr<store::Store>> opened =
      OpenStore(context, "memory://n5-short", context.store_options(true));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::shared_ptr<store::Store> source = *opened;
  WriteN5(*source);
  ASSERT_TRUE(source->Set("1/1/2", Bytes{0, 0, 0, 3, 0, 0}).ok());  // The last slab's block.
  Result<VolumeImport> imported = ImportVolumeAsZarrArray(
      context, "memory://n5-short", "memory://n5-short-out", Spec({}, core::Shape{2, 2, 2}));
  EXPECT_EQ(imported.status().code(), StatusCode::kCorruption) << imported.status().ToString();
  EXPECT_THAT(Message(imported.status()),
              HasSubstr("1/1/2: N5 block of 6 bytes, shorter than its header (16 bytes)"));
  std::shared_ptr<store::Store> out = *OpenStore(context, "memory://n5-short-out");
  EXPECT_TRUE(out->List("")->empty());
}

TEST(VolumeImportApi, AnN5ImportCancelledMidWayLeavesNothing) {
  Context context({.threads = 1});
  Result<std::shared_ptr<store::Store>> opened =
      OpenStore(context, "memory://n5-cancel", context.store_options(true));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  WriteN5(**opened);
  Counting observer;
  observer.cancel_context = &context;  // Cancels once the first slab is being written.
  Result<VolumeImport> imported =
      ImportVolumeAsZarrArray(context, "memory://n5-cancel", "memory://n5-cancel-out",
                              Spec({}, core::Shape{2, 4, 4}), {}, {.observer = &observer});
  EXPECT_EQ(imported.status().code(), StatusCode::kCancelled) << imported.status().ToString();
  std::shared_ptr<store::Store> out = *OpenStore(context, "memory://n5-cancel-out");
  EXPECT_TRUE(out->List("")->empty());
}

TEST(VolumeImportApi, AZarrArrayIsCopiedIntoTheImportsLayout) {
  const std::filesystem::path dir = FreshDirectory("volume_zarr");
  Context context;
  ZarrArraySpec v2 = Spec({3, 4});
  v2.shape = {7, 9};
  v2.data_type = *ParseDataType("uint16");
  v2.zarr_format = 2;
  v2.codecs = *ParseCodecs("gzip:5");
  Result<ZarrArray> source = CreateZarrArray(context, (dir / "v2.zarr").string(), v2);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  const Bytes ramp = api_test::Ramp16(63, 7);
  ASSERT_TRUE(WriteRegion(context, *source, core::Region({0, 0}, {7, 9}), ramp).ok());
  EXPECT_EQ(*DetectVolumeSource((dir / "v2.zarr").string()), VolumeSourceKind::kZarr);
  Result<VolumeImport> imported = ImportVolumeAsZarrArray(
      context, (dir / "v2.zarr").string(), (dir / "v3.zarr").string(), Spec({}, core::Shape{6, 8}));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ(imported->kind, VolumeSourceKind::kZarr);
  EXPECT_EQ(imported->array.metadata().zarr_format, 3);
  EXPECT_EQ(*ReadRegion(context, imported->array, core::Region({0, 0}, {7, 9})), ramp);
  ZarrArraySpec attributed = Spec({});
  attributed.attributes = {{"unit", "nm"}};
  const Status refused = ImportVolumeAsZarrArray(context, (dir / "v2.zarr").string(),
                                                 (dir / "attributed.zarr").string(), attributed)
                             .status();
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.field(), "attributes");
  EXPECT_TRUE(HoldsNoFiles(dir / "attributed.zarr"));
  // A copy refused once its destination is open (chunks of another rank)
  // leaves no folder behind, as every other import.
  const Status wrong_rank = ImportVolumeAsZarrArray(context, (dir / "v2.zarr").string(),
                                                    (dir / "wrong_rank.zarr").string(), Spec({1}))
                                .status();
  EXPECT_EQ(wrong_rank.code(), StatusCode::kInvalidArgument) << wrong_rank.ToString();
  EXPECT_FALSE(std::filesystem::exists(dir / "wrong_rank.zarr"));
}

}  // namespace
}  // namespace chunkwise
