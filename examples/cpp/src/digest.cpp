#include "digest.hpp"

#ifdef EXAMPLE_REGION_DIGEST

#include <stdexcept>

#include <openssl/evp.h>

namespace example {

std::string sha256_hex(const std::vector<std::uint8_t>& bytes) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1 || length != 32) {
        throw std::runtime_error("SHA-256 of a region failed (libcrypto)");
    }
    static const char kHex[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(2 * length);
    for (unsigned int i = 0; i < length; ++i) {
        hex.push_back(kHex[digest[i] >> 4]);
        hex.push_back(kHex[digest[i] & 0xF]);
    }
    return hex;
}

}  // namespace example

#endif
