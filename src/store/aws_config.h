// AwsSettings: credentials, region and endpoint for the S3 store, found where
// the AWS tools look for them.
//
// Sources, in the order the AWS CLI and boto3 use (docs/stores.md,
// "Credentials"):
//   credentials: AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN),
//                unless a profile was named explicitly; then the shared
//                credentials file (AWS_SHARED_CREDENTIALS_FILE, default
//                ~/.aws/credentials) and the config file (AWS_CONFIG_FILE,
//                default ~/.aws/config) for the profile (the one named, else
//                AWS_PROFILE, else "default"); with none found, requests go
//                unsigned (anonymous, for public buckets).
//   region:      AWS_REGION, AWS_DEFAULT_REGION, the profile's "region".
//   endpoint:    AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's nested
//                "s3 = / endpoint_url", its [services] section, its
//                "endpoint_url" (all ignored when
//                AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is true).
//   addressing:  the profile's nested "s3 = / addressing_style".
//   CA bundle:   AWS_CA_BUNDLE, the profile's "ca_bundle".
// Profiles whose credentials come from elsewhere (SSO, credential_process,
// role_arn, web identity) are Unsupported, named, rather than silently anonymous.
#ifndef CHUNKWISE_STORE_AWS_CONFIG_H_
#define CHUNKWISE_STORE_AWS_CONFIG_H_

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "chunkwise/core/result.h"

namespace chunkwise::store {

// Reads environment variables; tests substitute a map for the process's.
struct AwsEnvironment {
  std::function<std::optional<std::string>(const std::string&)> get;

  // The process environment (std::getenv).
  static AwsEnvironment Process();
  // Exactly the variables in `variables`.
  static AwsEnvironment FromMap(std::map<std::string, std::string> variables);
};

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // Temporary credentials only.
  // Where they came from, for messages: "environment", "<file> [profile]", "anonymous".
  std::string source = "anonymous";

  bool anonymous() const { return access_key_id.empty(); }
};

struct AwsSettings {
  std::string profile;  // The profile the files were read for.
  AwsCredentials credentials;
  std::optional<std::string> region;
  std::optional<std::string> s3_endpoint_url;
  std::optional<std::string> s3_addressing_style;  // "auto", "path" or "virtual".
  std::optional<std::string> ca_bundle;
};

// Resolves the settings for `profile` (nullopt: AWS_PROFILE, else "default").
// NotFound naming the files for a profile named explicitly or by AWS_PROFILE
// that neither file has; InvalidArgument naming the file and line for a
// malformed file, or for a key id without its secret; Unsupported naming the
// profile and setting for credential sources other than static keys.
Result<AwsSettings> LoadAwsSettings(const AwsEnvironment& environment,
                                    const std::optional<std::string>& profile = std::nullopt);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_STORE_AWS_CONFIG_H_
