#include "formats/precomputed/draco_declared_faces.h"

#include <gtest/gtest.h>

#include <memory>

#include "draco/compression/encode.h"
#include "draco/mesh/mesh.h"
#include "draco/metadata/geometry_metadata.h"
#include "formats/precomputed/multires_mesh.h"

namespace chunkwise::formats::precomputed {
namespace {

// A square of two triangles, encoded by Draco itself with `method`, and with
// metadata on the mesh and its positions when `with_metadata`.
Bytes DracoSquare(draco::MeshEncoderMethod method, bool with_metadata) {
  draco::Mesh mesh;
  mesh.set_num_points(4);
  draco::GeometryAttribute position;
  position.Init(draco::GeometryAttribute::POSITION, nullptr, 3, draco::DT_FLOAT32, false,
                sizeof(float) * 3, 0);
  const int id = mesh.AddAttribute(position, true, 4);
  const float corners[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
  for (std::uint32_t i = 0; i < 4; ++i) {
    mesh.attribute(id)->SetAttributeValue(draco::AttributeValueIndex(i), corners[i]);
  }
  mesh.AddFace({draco::PointIndex(0), draco::PointIndex(1), draco::PointIndex(2)});
  mesh.AddFace({draco::PointIndex(1), draco::PointIndex(3), draco::PointIndex(2)});
  if (with_metadata) {
    auto metadata = std::make_unique<draco::GeometryMetadata>();
    metadata->AddEntryString("name", "square");
    auto sub = std::make_unique<draco::Metadata>();
    sub->AddEntryInt("level", 3);
    metadata->AddSubMetadata("nested", std::move(sub));
    mesh.AddMetadata(std::move(metadata));
    auto on_positions = std::make_unique<draco::AttributeMetadata>();
    on_positions->AddEntryString("unit", "voxel");
    mesh.AddAttributeMetadata(id, std::move(on_positions));
  }
  draco::Encoder encoder;
  encoder.SetEncodingMethod(method);
  draco::EncoderBuffer buffer;
  EXPECT_TRUE(encoder.EncodeMeshToBuffer(mesh, &buffer).ok());
  const auto* data = reinterpret_cast<const std::uint8_t*>(buffer.data());
  return Bytes(data, data + buffer.size());
}

TEST(DracoDeclaredFaces, ReadsTheCountDracoWrote) {
  EXPECT_EQ(DracoEdgebreakerDeclaredFaces(DracoSquare(draco::MESH_EDGEBREAKER_ENCODING, false)),
            2u);
  // Metadata comes between the header and the connectivity.
  EXPECT_EQ(DracoEdgebreakerDeclaredFaces(DracoSquare(draco::MESH_EDGEBREAKER_ENCODING, true)), 2u);
  // Draco bounds its sequential method's count itself.
  EXPECT_EQ(DracoEdgebreakerDeclaredFaces(DracoSquare(draco::MESH_SEQUENTIAL_ENCODING, false)),
            std::nullopt);
  const Bytes cut = DracoSquare(draco::MESH_EDGEBREAKER_ENCODING, false);
  EXPECT_EQ(DracoEdgebreakerDeclaredFaces(ByteView(cut.data(), 12)), std::nullopt);
  EXPECT_EQ(DracoEdgebreakerDeclaredFaces(Bytes{'n', 'o', 't', ' ', 'd', 'r', 'a', 'c', 'o'}),
            std::nullopt);
}

// A fragment fuzz-long forged (multires_mesh_fuzz): 61 bytes of bitstream 1.1
// declaring 640,034,342 triangles, for which Draco allocated a corner table
// of 7.6 GB before reading a symbol. It is refused before Draco sees it.
TEST(DracoDeclaredFaces, AFragmentDeclaringMoreTrianglesThanItCouldHoldIsCorruption) {
  const Bytes forged = {
      0x44, 0x52, 0x41, 0x43, 0x4f, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
      0x25, 0x01, 0x01, 0x01, 0x01, 0x01, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26,
      0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26,
      0x26, 0x26, 0x26, 0x26, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
      0x01, 0x01, 0x01, 0x01, 0x04, 0x01, 0x84, 0x60, 0x01,
  };
  EXPECT_EQ(DracoEdgebreakerDeclaredFaces(forged), 0x26262626u);
  auto decoded = DecodeDracoFragment(forged, 10, "9");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(decoded.status().message(),
            "multi-resolution mesh fragment 9: declares 640034342 triangles in 61 bytes, more "
            "than 256 a byte");
}

}  // namespace
}  // namespace chunkwise::formats::precomputed
