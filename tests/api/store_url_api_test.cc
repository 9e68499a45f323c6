// OpenStore(url) through the scheme registry: every built-in scheme, the
// errors that name the URL, and schemes a program registers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "api_test_support.h"
#include "chunkwise/chunkwise.h"

namespace chunkwise {
namespace {

using api_test::Message;
using ::testing::HasSubstr;

TEST(OpenStoreApi, MemoryStoresAreNamedWithinOneContext) {
  Context context;
  auto created = OpenStore(context, "memory://scratch", {.create = true});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  ASSERT_TRUE((*created)->Set("k", AsBytes("v")).ok());
  // The same name in the same context is the same store.
  auto again = OpenStore(context, "memory://scratch");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  auto value = (*again)->Get("k");
  ASSERT_TRUE(value.ok() && value->has_value());
  EXPECT_EQ(AsChars(**value), "v");
  // Another context shares nothing.
  Context other;
  auto missing = OpenStore(other, "memory://scratch");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(Message(missing.status()), HasSubstr("memory://scratch"));
}

TEST(OpenStoreApi, PlainPathsAndFileUrlsOpenDirectories) {
  Context context;
  const auto root = api_test::FreshDirectory("file_urls");
  const std::string missing = (root / "not-here").string();
  auto absent = OpenStore(context, missing);
  EXPECT_EQ(absent.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(Message(absent.status()), HasSubstr(missing));

  auto created = OpenStore(context, "file://" + missing, {.create = true});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(std::filesystem::is_directory(missing));
  ASSERT_TRUE((*created)->Set("a/b", AsBytes("xyz")).ok());
  auto plain = OpenStore(context, missing);
  ASSERT_TRUE(plain.ok());
  auto size = (*plain)->Size("a/b");
  ASSERT_TRUE(size.ok() && size->has_value());
  EXPECT_EQ(**size, 3u);
  // A file that is no reference set is no store.
  ASSERT_TRUE((*created)->Set("plain.bin", AsBytes("1")).ok());
  auto file = OpenStore(context, missing + "/plain.bin");
  EXPECT_EQ(file.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(file.status()), HasSubstr("plain.bin"));
}

TEST(OpenStoreApi, AWriterRemovesTheTemporariesOfDeadWriters) {
  Context context;
  const auto root = api_test::FreshDirectory("dead_temporaries");
  // A temporary as a FileStore writer names it, of a process that is not
  // running (4194303 is the highest pid Linux hands out; it is not in use here).
  const auto dead = root / ".v.tmp.4194303.0";
  std::ofstream(dead) << "partial";
  ASSERT_TRUE(OpenStore(context, root.string()).ok());
  EXPECT_TRUE(std::filesystem::exists(dead));  // A reader leaves it.
  ASSERT_TRUE(OpenStore(context, root.string(), {.create = true}).ok());
  EXPECT_FALSE(std::filesystem::exists(dead));
}

TEST(OpenStoreApi, RocksDbUrls) {
  Context context;
  const std::string path = (api_test::FreshDirectory("rocks") / "db").string();
  auto absent = OpenStore(context, "rocksdb://" + path);
  EXPECT_NE(absent.status().code(), StatusCode::kOk);
  auto db = OpenStore(context, "rocksdb://" + path, {.create = true});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE((*db)->Set("key", AsBytes("value")).ok());
  auto value = (*db)->Get("key");
  ASSERT_TRUE(value.ok() && value->has_value());
  EXPECT_EQ(AsChars(**value), "value");
}

TEST(OpenStoreApi, BadUrlsNameTheUrl) {
  Context context;
  auto unknown = OpenStore(context, "ftp://host/data");
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(unknown.status()), HasSubstr("ftp://host/data"));
  EXPECT_THAT(Message(unknown.status()), HasSubstr("unknown URL scheme \"ftp\""));
  EXPECT_THAT(Message(unknown.status()), HasSubstr("s3"));
  EXPECT_EQ(OpenStore(context, "").status().code(), StatusCode::kInvalidArgument);
  auto no_bucket = OpenStore(context, "s3://");
  EXPECT_EQ(no_bucket.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(no_bucket.status()), HasSubstr("s3://"));
  // A reference set is read-only.
  const auto root = api_test::FreshDirectory("refs_read_only");
  std::ofstream(root / "refs.json")
      << R"({"version": 1, "refs": {".zgroup": "{\"zarr_format\": 2}"}})";
  auto written = OpenStore(context, "refs://" + (root / "refs.json").string(), {.create = true});
  EXPECT_EQ(written.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(written.status()), HasSubstr("read-only"));
  // http(s) stores are read-only; they open without a request.
  auto http = OpenStore(context, "https://example.invalid/data.zarr");
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  EXPECT_FALSE((*http)->capabilities().writable);
}

TEST(OpenStoreApi, ProgramsRegisterTheirOwnSchemes) {
  Context context;
  auto backing = OpenStore(context, "memory://backing", {.create = true});
  ASSERT_TRUE(backing.ok());
  std::shared_ptr<store::Store> target = *backing;
  ASSERT_TRUE(context.stores()
                  .Register("mine",
                            [target](const StoreUrl& url,
                                     const StoreOptions&) -> Result<std::shared_ptr<store::Store>> {
                              if (url.location != "x") return Status::NotFound(url.text);
                              return target;
                            })
                  .ok());
  auto mine = OpenStore(context, "MINE://x");
  ASSERT_TRUE(mine.ok()) << mine.status().ToString();
  EXPECT_EQ(mine->get(), target.get());
  EXPECT_EQ(OpenStore(context, "mine://y").status().code(), StatusCode::kNotFound);
  const Status taken = context.stores().Register("s3", nullptr);
  EXPECT_EQ(taken.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(taken), HasSubstr("\"s3\" is registered already"));
  EXPECT_EQ(context.stores().Register("Bad Scheme", nullptr).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace chunkwise
