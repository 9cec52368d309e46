#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

// OpenSSL's libssl, for what curl's OpenSSL backend hands the application
// through CURLOPT_SSL_CTX_FUNCTION: the library installs a certificate
// callback there to learn, from the handshake itself, whether a server asked
// for a client certificate.
#include <openssl/ssl.h>

#endif
