// MD5 (RFC 1321), for the Content-MD5 header that S3's DeleteObjects requires.
// Not for security: S3 uses it as a checksum of the request body.
#ifndef CHUNKWISE_SRC_STORE_MD5_H_
#define CHUNKWISE_SRC_STORE_MD5_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace chunkwise::store {

std::array<std::uint8_t, 16> Md5(std::string_view data);

// The digest in base64, as Content-MD5 carries it.
std::string Md5Base64(std::string_view data);

}  // namespace chunkwise::store

#endif  // CHUNKWISE_SRC_STORE_MD5_H_
