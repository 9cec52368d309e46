#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

// OpenSSL's libcrypto, whose SHA-256 names cache files (EVP_Digest), and
// libssl, for what curl's OpenSSL backend hands the application through
// CURLOPT_SSL_CTX_FUNCTION: the library installs a certificate
// callback there to learn, from the handshake itself, whether a server asked
// for a client certificate. AsyncWebImageRedis speaks TLS to Redis with the
// same library, over memory BIOs (its RedisTLSHandler).
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509v3.h>

/// SNI: SSL_set_tlsext_host_name is a macro over SSL_ctrl.
static inline int COpenSSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// The oldest protocol version accepted: a macro over SSL_CTX_ctrl.
static inline int COpenSSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}

#endif
