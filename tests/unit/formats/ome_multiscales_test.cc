#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/ome/multiscales.h"

namespace chunkwise::formats::ome {
namespace {

Multiscale ThreeLevels() {
  Multiscale multiscale;
  multiscale.axes = *AxesFromNames({}, 3, "micrometer");
  multiscale.datasets = {{"0", {2.0, 0.5, 0.5}}, {"1", {4.0, 1.0, 1.0}}, {"2", {8.0, 2.0, 2.0}}};
  multiscale.type = "mean";
  return multiscale;
}

TEST(OmeMultiscalesTest, WritesTheVersionAxesAndOneScalePerLevel) {
  const Result<nlohmann::json> attributes = MultiscalesAttributes(ThreeLevels());
  ASSERT_TRUE(attributes.ok()) << attributes.status().ToString();
  const nlohmann::json expected = nlohmann::json::parse(R"({"ome": {
    "version": "0.5",
    "multiscales": [{
      "axes": [{"name": "z", "type": "space", "unit": "micrometer"},
               {"name": "y", "type": "space", "unit": "micrometer"},
               {"name": "x", "type": "space", "unit": "micrometer"}],
      "datasets": [
        {"path": "0", "coordinateTransformations": [{"type": "scale", "scale": [2.0, 0.5, 0.5]}]},
        {"path": "1", "coordinateTransformations": [{"type": "scale", "scale": [4.0, 1.0, 1.0]}]},
        {"path": "2", "coordinateTransformations": [{"type": "scale", "scale": [8.0, 2.0, 2.0]}]}],
      "type": "mean"}]}})");
  EXPECT_EQ(*attributes, expected) << attributes->dump(2);
}

TEST(OmeMultiscalesTest, DefaultAxesByRankAndTypesByName) {
  auto names = [](const std::vector<Axis>& axes) {
    std::string text;
    for (const Axis& axis : axes) text += axis.name + ":" + axis.type + ":" + axis.unit + " ";
    return text;
  };
  EXPECT_EQ(names(*AxesFromNames({}, 2, "")), "y:space: x:space: ");
  EXPECT_EQ(names(*AxesFromNames({}, 4, "nanometer")),
            "t:time: z:space:nanometer y:space:nanometer x:space:nanometer ");
  EXPECT_EQ(names(*AxesFromNames({}, 5, "")), "t:time: c:channel: z:space: y:space: x:space: ");
  const std::vector<std::string> given = {"c", "y", "x"};
  EXPECT_EQ(names(*AxesFromNames(given, 3, "")), "c:channel: y:space: x:space: ");
  EXPECT_EQ(AxesFromNames({}, 1, "").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(AxesFromNames({}, 6, "").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(AxesFromNames(given, 4, "").status().code(), StatusCode::kInvalidArgument);
}

TEST(OmeMultiscalesTest, BrokenRulesAreNamed) {
  auto message_of = [](const Multiscale& multiscale) {
    const Status status = Validate(multiscale);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    return std::string(status.message());
  };
  Multiscale m = ThreeLevels();
  m.axes[0].unit = "micron";
  EXPECT_NE(message_of(m).find("\"micron\" is not a unit"), std::string::npos);
  m = ThreeLevels();
  m.axes[1].name = "z";
  EXPECT_NE(message_of(m).find("unique"), std::string::npos);
  m = ThreeLevels();
  m.axes[2].type = "time";  // Time after space.
  EXPECT_NE(message_of(m).find("time, channel, then space"), std::string::npos);
  m = ThreeLevels();
  m.axes = *AxesFromNames(std::vector<std::string>{"t", "x"}, 2, "");
  for (Dataset& level : m.datasets) level.scale.resize(2);
  EXPECT_NE(message_of(m).find("2 or 3 space axes, not 1"), std::string::npos);
  m = ThreeLevels();
  m.datasets[2].scale[1] = 0.25;
  EXPECT_NE(message_of(m).find("axis y shrinks"), std::string::npos);
  m = ThreeLevels();
  m.datasets[1].scale.pop_back();
  EXPECT_NE(message_of(m).find("2 scale factors for 3 axes"), std::string::npos);
  m = ThreeLevels();
  m.datasets[1].path = "0";
  EXPECT_NE(message_of(m).find("unique"), std::string::npos);
  m = ThreeLevels();
  m.datasets[0].scale[0] = 0;
  EXPECT_NE(message_of(m).find("positive"), std::string::npos);
  m = ThreeLevels();
  m.datasets.clear();
  EXPECT_NE(message_of(m).find("needs a level"), std::string::npos);
  EXPECT_TRUE(IsKnownUnit("time", "millisecond"));
  EXPECT_FALSE(IsKnownUnit("space", "millisecond"));
}

}  // namespace
}  // namespace chunkwise::formats::ome
