#ifndef THUMBNAIL_CCRYPTO_SHIM_H
#define THUMBNAIL_CCRYPTO_SHIM_H

// OpenSSL's libcrypto: HMAC-SHA256 for signed URLs, SHA-256 for cache keys,
// and a constant-time comparison. Only functions OpenSSL 3 does not deprecate.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#endif
