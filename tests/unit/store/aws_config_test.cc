// Where the S3 store finds credentials, region and endpoint: the environment
// and the shared files, in the AWS tools' order.
#include "store/aws_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "store/aws_ini.h"
#include "unit/scratch_directory.h"

namespace chunkwise::store {
namespace {

using ::testing::HasSubstr;

class AwsConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshScratchDirectory("aws");
    std::filesystem::create_directories(dir_ / ".aws");
    variables_["HOME"] = dir_.string();
  }
  void Write(const std::string& relative, const std::string& text) {
    std::ofstream(dir_ / relative) << text;
  }
  Result<AwsSettings> Load(std::optional<std::string> profile = std::nullopt) {
    return LoadAwsSettings(AwsEnvironment::FromMap(variables_), profile);
  }

  std::filesystem::path dir_;
  std::map<std::string, std::string> variables_;
};

TEST_F(AwsConfigTest, NothingConfiguredIsAnonymousInNoRegion) {
  Result<AwsSettings> settings = Load();
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  EXPECT_TRUE(settings->credentials.anonymous());
  EXPECT_EQ(settings->credentials.source, "anonymous");
  EXPECT_EQ(settings->profile, "default");
  EXPECT_EQ(settings->region, std::nullopt);
  EXPECT_EQ(settings->s3_endpoint_url, std::nullopt);
}

TEST_F(AwsConfigTest, EnvironmentKeysComeFirst) {
  Write(".aws/credentials",
        "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = FILESECRET\n");
  variables_["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  variables_["AWS_SECRET_ACCESS_KEY"] = "ENVSECRET";
  variables_["AWS_SESSION_TOKEN"] = "TOKEN";
  Result<AwsSettings> settings = Load();
  ASSERT_TRUE(settings.ok());
  EXPECT_EQ(settings->credentials.access_key_id, "ENVKEY");
  EXPECT_EQ(settings->credentials.secret_access_key, "ENVSECRET");
  EXPECT_EQ(settings->credentials.session_token, "TOKEN");
  EXPECT_EQ(settings->credentials.source, "environment");
  // A profile named by the caller wins over the environment, as in boto3.
  Result<AwsSettings> named = Load("default");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->credentials.access_key_id, "FILEKEY");
}

TEST_F(AwsConfigTest, HalfAKeyPairIsAnError) {
  variables_["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  Result<AwsSettings> settings = Load();
  EXPECT_EQ(settings.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(settings.status().message()), HasSubstr("AWS_SECRET_ACCESS_KEY"));
}

TEST_F(AwsConfigTest, ProfilesFromBothFiles) {
  Write(
      ".aws/credentials",
      "# comment\n[default]\naws_access_key_id=D\naws_secret_access_key=DS\n\n"
      "[dev]\nAWS_ACCESS_KEY_ID = DEV\naws_secret_access_key = DEVSECRET\naws_session_token = T\n");
  Write(".aws/config",
        "[default]\nregion = us-west-2\n"
        "[profile dev]\nregion = eu-west-1\ns3 =\n  addressing_style = path\n  endpoint_url = "
        "http://127.0.0.1:9000\nca_bundle = /etc/ca.pem\n"
        "[profile cfg-only]\naws_access_key_id = C\naws_secret_access_key = CS\n");
  variables_["AWS_PROFILE"] = "dev";
  Result<AwsSettings> dev = Load();
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  EXPECT_EQ(dev->profile, "dev");
  EXPECT_EQ(dev->credentials.access_key_id, "DEV");
  EXPECT_EQ(dev->credentials.session_token, "T");
  EXPECT_THAT(dev->credentials.source, HasSubstr("credentials [dev]"));
  EXPECT_EQ(dev->region, "eu-west-1");
  EXPECT_EQ(dev->s3_addressing_style, "path");
  EXPECT_EQ(dev->s3_endpoint_url, "http://127.0.0.1:9000");
  EXPECT_EQ(dev->ca_bundle, "/etc/ca.pem");
  Result<AwsSettings> config_only = Load("cfg-only");
  ASSERT_TRUE(config_only.ok());
  EXPECT_EQ(config_only->credentials.access_key_id, "C");
  EXPECT_THAT(config_only->credentials.source, HasSubstr("config [profile cfg-only]"));
  variables_.erase("AWS_PROFILE");
  Result<AwsSettings> fallback = Load();
  ASSERT_TRUE(fallback.ok());
  EXPECT_EQ(fallback->credentials.access_key_id, "D");
  EXPECT_EQ(fallback->region, "us-west-2");
}

TEST_F(AwsConfigTest, EnvironmentOverridesFilesForRegionAndEndpoint) {
  Write(".aws/config", "[default]\nregion = us-west-2\nendpoint_url = http://profile:1\n");
  EXPECT_EQ(Load()->s3_endpoint_url, "http://profile:1");
  variables_["AWS_ENDPOINT_URL"] = "http://general:2";
  EXPECT_EQ(Load()->s3_endpoint_url, "http://general:2");
  variables_["AWS_ENDPOINT_URL_S3"] = "http://s3-only:3";
  variables_["AWS_DEFAULT_REGION"] = "ap-south-1";
  EXPECT_EQ(Load()->s3_endpoint_url, "http://s3-only:3");
  EXPECT_EQ(Load()->region, "ap-south-1");
  variables_["AWS_REGION"] = "sa-east-1";
  EXPECT_EQ(Load()->region, "sa-east-1");
  variables_["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"] = "true";
  EXPECT_EQ(Load()->s3_endpoint_url, std::nullopt);
}

TEST_F(AwsConfigTest, ServicesSectionGivesTheEndpoint) {
  Write(".aws/config",
        "[profile local]\nservices = minio\n[services minio]\ns3 =\n  endpoint_url = "
        "http://minio:9000\n");
  EXPECT_EQ(Load("local")->s3_endpoint_url, "http://minio:9000");
}

TEST_F(AwsConfigTest, FilesNamedByTheEnvironment) {
  Write("creds", "[x]\naws_access_key_id = X\naws_secret_access_key = XS\n");
  Write("conf", "[profile x]\nregion = eu-north-1\n");
  variables_["AWS_SHARED_CREDENTIALS_FILE"] = (dir_ / "creds").string();
  variables_["AWS_CONFIG_FILE"] = (dir_ / "conf").string();
  Result<AwsSettings> settings = Load("x");
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  EXPECT_EQ(settings->credentials.access_key_id, "X");
  EXPECT_EQ(settings->region, "eu-north-1");
}

TEST_F(AwsConfigTest, AMissingNamedProfileIsNotFound) {
  variables_["AWS_PROFILE"] = "ghost";
  Result<AwsSettings> settings = Load();
  EXPECT_EQ(settings.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(std::string(settings.status().message()), HasSubstr("\"ghost\""));
}

TEST_F(AwsConfigTest, UnsupportedCredentialSourcesAreNamed) {
  Write(".aws/config",
        "[profile sso]\nsso_start_url = https://example.awsapps.com/start\n"
        "[profile role]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = default\n");
  for (const char* profile : {"sso", "role"}) {
    Result<AwsSettings> settings = Load(profile);
    EXPECT_EQ(settings.status().code(), StatusCode::kUnsupported) << profile;
    EXPECT_THAT(std::string(settings.status().message()), HasSubstr(profile));
  }
}

TEST_F(AwsConfigTest, MalformedFilesNameTheFileAndLine) {
  Write(".aws/credentials", "[default]\naws_access_key_id = A\nthis line has no delimiter\n");
  Result<AwsSettings> settings = Load();
  EXPECT_EQ(settings.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(settings.status().message()), HasSubstr("credentials:3"));
}

TEST(AwsIni, ParsesSectionsSettingsAndNesting) {
  Result<IniFile> ini = ParseIni(
      "; comment\n[ a ]\nKey = value with = sign\nother: colon\ns3 =\n  x = 1\n\ty=2\nafter = 3\n"
      "[b]\r\nk = v\r\n",
      "test");
  ASSERT_TRUE(ini.ok()) << ini.status().ToString();
  const IniSection& a = ini->sections.at("a");
  EXPECT_EQ(a.values.at("key"), "value with = sign");
  EXPECT_EQ(a.values.at("other"), "colon");
  EXPECT_EQ(a.nested.at("s3").at("x"), "1");
  EXPECT_EQ(a.nested.at("s3").at("y"), "2");
  EXPECT_EQ(a.values.at("after"), "3");
  EXPECT_EQ(ini->sections.at("b").values.at("k"), "v");
}

TEST(AwsIni, RefusesMalformedLines) {
  for (const char* text : {"key = before section\n", "[unclosed\n", "[]\n", "[a]\n= no name\n"}) {
    Result<IniFile> ini = ParseIni(text, "bad.ini");
    EXPECT_EQ(ini.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(std::string(ini.status().message()), HasSubstr("bad.ini:")) << text;
  }
}

}  // namespace
}  // namespace chunkwise::store
