// The pieces of the S3 protocol that need no server: the XML replies,
// percent-encoding, Content-MD5 and the retry backoff.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/http_transport.h"
#include "store/md5.h"
#include "store/percent_encoding.h"
#include "store/s3_writer.h"
#include "store/xml_document.h"

namespace chunkwise::store {
namespace {

using ::testing::HasSubstr;

TEST(XmlDocument, ReadsAListingReply) {
  Result<XmlElement> root = ParseXml(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<!-- a comment --><Name>b</Name><Contents><Key>a&amp;b&lt;&#233;&#x2603;</Key></Contents>"
      "<Contents><Key><![CDATA[x<y]]></Key></Contents><Empty/><s3:Ns>v</s3:Ns></ListBucketResult>",
      "listing");
  ASSERT_TRUE(root.ok()) << root.status().ToString();
  EXPECT_EQ(root->name, "ListBucketResult");
  EXPECT_EQ(root->ChildText("Name"), "b");
  ASSERT_EQ(root->children.size(), 5u);
  EXPECT_EQ(root->children[1].ChildText("Key"), "a&b<\xc3\xa9\xe2\x98\x83");
  EXPECT_EQ(root->children[2].ChildText("Key"), "x<y");
  EXPECT_EQ(root->ChildText("Empty"), "");
  EXPECT_EQ(root->ChildText("Ns"), "v");
  EXPECT_EQ(root->Child("Missing"), nullptr);
}

TEST(XmlDocument, RefusesMalformedOrHostileDocuments) {
  std::string nested;
  for (int i = 0; i < 40; ++i) nested += "<a>";
  for (const std::string& text :
       {std::string("<a><b></a>"), std::string("<a>"), std::string("<!DOCTYPE x><a/>"),
        std::string("<a>&bogus;</a>"), std::string("<a>&#0;</a>"), std::string("<a/><b/>"),
        std::string("<a x=1/>"), std::string(""), nested}) {
    Result<XmlElement> root = ParseXml(text, "reply of GET s3://b/k");
    EXPECT_EQ(root.status().code(), StatusCode::kCorruption) << text;
    EXPECT_THAT(std::string(root.status().message()), HasSubstr("s3://b/k")) << text;
  }
}

TEST(XmlDocument, EscapesWhatWeSend) {
  EXPECT_EQ(XmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
}

TEST(PercentEncoding, EncodesAllButUnreservedAndDecodesListings) {
  EXPECT_EQ(PercentEncode("a b/c+d~e_f.g-h\xc3\xbc", true), "a%20b/c%2Bd~e_f.g-h%C3%BC");
  EXPECT_EQ(PercentEncode("a/b", false), "a%2Fb");
  EXPECT_EQ(*PercentDecode("a+b%2Bc%C3%BC"), "a b+c\xc3\xbc");
  EXPECT_EQ(PercentDecode("bad%2").status().code(), StatusCode::kCorruption);
  EXPECT_EQ(PercentDecode("bad%zz").status().code(), StatusCode::kCorruption);
}

TEST(Md5, MatchesTheRfc1321TestSuite) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "1B2M2Y8AsgTpgAmY7PhCfg=="},
      {"a", "DMF1ucDxtqgxw5niaXcmYQ=="},
      {"abc", "kAFQmDzST7DWlj99KOF/cg=="},
      {"message digest", "+WtpfXy3k41SWi8xqvFh0A=="},
      {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
       "V+30oivjyVWsSdouIQe2eg=="},
  };
  for (const auto& [text, base64] : cases) EXPECT_EQ(Md5Base64(text), base64) << text;
}

TEST(RetryPolicy, BackoffGrowsWithFullJitterUpToTheCap) {
  RetryPolicy policy;
  policy.initial_backoff = std::chrono::milliseconds(10);
  policy.max_backoff = std::chrono::milliseconds(100);
  EXPECT_EQ(policy.Backoff(1, 10).count(), 10);
  EXPECT_EQ(policy.Backoff(1, 11).count(), 0);
  EXPECT_EQ(policy.Backoff(3, 40).count(), 40);  // Ceiling 40 ms at the third retry.
  EXPECT_EQ(policy.Backoff(3, 41).count(), 0);
  EXPECT_EQ(policy.Backoff(30, 100).count(), 100);  // Capped.
  EXPECT_LE(policy.Backoff(60, ~std::uint64_t{0}).count(), 100);
}

TEST(S3ValueWriter, PartsDoubleEveryThousandToReachFiveTebibytes) {
  const std::uint64_t mib = std::uint64_t{1} << 20;
  EXPECT_EQ(S3ValueWriter::PartSize(8 * mib, 1), 8 * mib);
  EXPECT_EQ(S3ValueWriter::PartSize(8 * mib, 1000), 8 * mib);
  EXPECT_EQ(S3ValueWriter::PartSize(8 * mib, 1001), 16 * mib);
  std::uint64_t total = 0;
  for (int part = 1; part <= 10000; ++part) total += S3ValueWriter::PartSize(8 * mib, part);
  EXPECT_GE(total, std::uint64_t{5} << 40);
  EXPECT_LE(S3ValueWriter::PartSize(8 * mib, 10000), std::uint64_t{5} << 30);
}

}  // namespace
}  // namespace chunkwise::store
