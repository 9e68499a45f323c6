#include "store/aws_config.h"

#include <cstdlib>
#include <filesystem>
#include <utility>

#include "core/file_io.h"
#include "store/aws_ini.h"

namespace chunkwise::store {
namespace {

namespace fs = std::filesystem;

// Settings that mean the profile's credentials come from a source we do not
// implement; reporting them beats sending unsigned requests.
constexpr const char* kUnsupportedSources[] = {"credential_process", "role_arn", "sso_session",
                                               "sso_start_url", "web_identity_token_file"};

std::optional<std::string> NonEmpty(const AwsEnvironment& environment, const std::string& name) {
  std::optional<std::string> value = environment.get(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

bool IsTrue(const std::optional<std::string>& value) {
  return value && (*value == "true" || *value == "TRUE" || *value == "True" || *value == "1");
}

// "~/x" under HOME, as the AWS tools expand it.
fs::path ExpandHome(const AwsEnvironment& environment, const std::string& path) {
  if (path == "~" || path.starts_with("~/")) {
    const std::string home = NonEmpty(environment, "HOME").value_or("");
    return fs::path(home) / path.substr(std::min<std::size_t>(path.size(), 2));
  }
  return path;
}

struct LoadedFile {
  fs::path path;
  std::optional<IniFile> ini;  // nullopt when the file does not exist.
};

Result<LoadedFile> LoadFile(const AwsEnvironment& environment, const std::string& variable,
                            const std::string& default_path) {
  LoadedFile file;
  file.path = ExpandHome(environment, NonEmpty(environment, variable).value_or(default_path));
  Result<Bytes> bytes = core::ReadFile(file.path);
  if (!bytes.ok()) {
    if (bytes.status().code() == StatusCode::kNotFound) return file;
    return bytes.status();
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  CHUNKWISE_ASSIGN_OR_RETURN(IniFile ini, ParseIni(text, file.path.string()));
  file.ini = std::move(ini);
  return file;
}

// The config file's section for `profile`: "[profile NAME]", or "[default]" for the default.
const IniSection* ConfigSection(const LoadedFile& config, const std::string& profile) {
  if (!config.ini) return nullptr;
  const auto& sections = config.ini->sections;
  if (auto it = sections.find("profile " + profile); it != sections.end()) return &it->second;
  if (profile == "default") {
    if (auto it = sections.find("default"); it != sections.end()) return &it->second;
  }
  return nullptr;
}

const IniSection* CredentialsSection(const LoadedFile& credentials, const std::string& profile) {
  if (!credentials.ini) return nullptr;
  auto it = credentials.ini->sections.find(profile);
  return it == credentials.ini->sections.end() ? nullptr : &it->second;
}

std::optional<std::string> Value(const IniSection* section, const std::string& name) {
  if (section == nullptr) return std::nullopt;
  auto it = section->values.find(name);
  if (it == section->values.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

std::optional<std::string> Nested(const IniSection* section, const std::string& outer,
                                  const std::string& name) {
  if (section == nullptr) return std::nullopt;
  auto it = section->nested.find(outer);
  if (it == section->nested.end()) return std::nullopt;
  auto value = it->second.find(name);
  if (value == it->second.end() || value->second.empty()) return std::nullopt;
  return value->second;
}

// Static keys from `section`, or nullopt when it has none; InvalidArgument for half a pair.
Result<std::optional<AwsCredentials>> KeysFrom(const IniSection* section, std::string source) {
  const std::optional<std::string> id = Value(section, "aws_access_key_id");
  const std::optional<std::string> secret = Value(section, "aws_secret_access_key");
  if (!id && !secret) return std::optional<AwsCredentials>();
  if (!id || !secret) {
    return Status::InvalidArgument(source + " has " +
                                   (id ? "aws_access_key_id but no aws_secret_access_key"
                                       : "aws_secret_access_key but no aws_access_key_id"));
  }
  AwsCredentials credentials;
  credentials.access_key_id = *id;
  credentials.secret_access_key = *secret;
  credentials.session_token = Value(section, "aws_session_token").value_or("");
  credentials.source = std::move(source);
  return std::optional<AwsCredentials>(std::move(credentials));
}

Result<std::optional<AwsCredentials>> KeysFromEnvironment(const AwsEnvironment& environment) {
  const std::optional<std::string> id = NonEmpty(environment, "AWS_ACCESS_KEY_ID");
  const std::optional<std::string> secret = NonEmpty(environment, "AWS_SECRET_ACCESS_KEY");
  if (!id && !secret) return std::optional<AwsCredentials>();
  if (!id || !secret) {
    return Status::InvalidArgument(
        id ? "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"
           : "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not");
  }
  AwsCredentials credentials;
  credentials.access_key_id = *id;
  credentials.secret_access_key = *secret;
  credentials.session_token =
      NonEmpty(environment, "AWS_SESSION_TOKEN")
          .value_or(NonEmpty(environment, "AWS_SECURITY_TOKEN").value_or(""));
  credentials.source = "environment";
  return std::optional<AwsCredentials>(std::move(credentials));
}

Status CheckSupportedSource(const IniSection* section, const std::string& where) {
  for (const char* setting : kUnsupportedSources) {
    if (Value(section, setting)) {
      return Status::Unsupported(where + " takes its credentials from \"" + setting +
                                 "\", which chunkwise does not support; give it "
                                 "aws_access_key_id and aws_secret_access_key, or set "
                                 "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
    }
  }
  return Status::Ok();
}

// The S3 endpoint the profile configures, most specific first.
std::optional<std::string> ProfileEndpoint(const LoadedFile& config, const IniSection* profile) {
  if (auto url = Nested(profile, "s3", "endpoint_url")) return url;
  if (auto services = Value(profile, "services"); services && config.ini) {
    auto it = config.ini->sections.find("services " + *services);
    if (it != config.ini->sections.end()) {
      if (auto url = Nested(&it->second, "s3", "endpoint_url")) return url;
    }
  }
  return Value(profile, "endpoint_url");
}

}  // namespace

AwsEnvironment AwsEnvironment::Process() {
  return {[](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());  // NOLINT(concurrency-mt-unsafe): read only
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  }};
}

AwsEnvironment AwsEnvironment::FromMap(std::map<std::string, std::string> variables) {
  return {
      [variables = std::move(variables)](const std::string& name) -> std::optional<std::string> {
        auto it = variables.find(name);
        if (it == variables.end()) return std::nullopt;
        return it->second;
      }};
}

Result<AwsSettings> LoadAwsSettings(const AwsEnvironment& environment,
                                    const std::optional<std::string>& profile) {
  AwsSettings settings;
  const std::optional<std::string> env_profile = NonEmpty(environment, "AWS_PROFILE").has_value()
                                                     ? NonEmpty(environment, "AWS_PROFILE")
                                                     : NonEmpty(environment, "AWS_DEFAULT_PROFILE");
  settings.profile = profile.value_or(env_profile.value_or("default"));
  CHUNKWISE_ASSIGN_OR_RETURN(
      LoadedFile credentials_file,
      LoadFile(environment, "AWS_SHARED_CREDENTIALS_FILE", "~/.aws/credentials"));
  CHUNKWISE_ASSIGN_OR_RETURN(LoadedFile config_file,
                             LoadFile(environment, "AWS_CONFIG_FILE", "~/.aws/config"));
  const IniSection* from_credentials = CredentialsSection(credentials_file, settings.profile);
  const IniSection* from_config = ConfigSection(config_file, settings.profile);
  if (from_credentials == nullptr && from_config == nullptr && (profile || env_profile) &&
      settings.profile != "default") {
    return Status::NotFound("AWS profile \"" + settings.profile + "\" is in neither " +
                            credentials_file.path.string() + " nor " + config_file.path.string());
  }

  // An explicitly named profile wins over the environment's keys, as in boto3.
  std::optional<AwsCredentials> found;
  if (!profile) {
    CHUNKWISE_ASSIGN_OR_RETURN(found, KeysFromEnvironment(environment));
  }
  const std::string in_credentials = credentials_file.path.string() + " [" + settings.profile + "]";
  const std::string in_config = config_file.path.string() + " [profile " + settings.profile + "]";
  if (!found) {
    CHUNKWISE_ASSIGN_OR_RETURN(found, KeysFrom(from_credentials, in_credentials));
  }
  if (!found) {
    CHUNKWISE_ASSIGN_OR_RETURN(found, KeysFrom(from_config, in_config));
  }
  if (!found) {
    CHUNKWISE_RETURN_IF_ERROR(CheckSupportedSource(from_credentials, in_credentials));
    CHUNKWISE_RETURN_IF_ERROR(CheckSupportedSource(from_config, in_config));
  }
  if (found) settings.credentials = std::move(*found);

  settings.region = NonEmpty(environment, "AWS_REGION");
  if (!settings.region) settings.region = NonEmpty(environment, "AWS_DEFAULT_REGION");
  if (!settings.region) settings.region = Value(from_config, "region");
  if (!IsTrue(environment.get("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"))) {
    settings.s3_endpoint_url = NonEmpty(environment, "AWS_ENDPOINT_URL_S3");
    if (!settings.s3_endpoint_url)
      settings.s3_endpoint_url = NonEmpty(environment, "AWS_ENDPOINT_URL");
    if (!settings.s3_endpoint_url)
      settings.s3_endpoint_url = ProfileEndpoint(config_file, from_config);
  }
  settings.s3_addressing_style = Nested(from_config, "s3", "addressing_style");
  settings.ca_bundle = NonEmpty(environment, "AWS_CA_BUNDLE");
  if (!settings.ca_bundle) settings.ca_bundle = Value(from_config, "ca_bundle");
  return settings;
}

}  // namespace chunkwise::store
