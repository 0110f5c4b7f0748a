#ifndef LIVECONNECTION_COPENSSL_SHIM_H
#define LIVECONNECTION_COPENSSL_SHIM_H
// The system OpenSSL (libssl-dev on Debian/Ubuntu, `brew install openssl@3` on macOS).
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509_vfy.h>

// Macros Swift cannot import, as functions.
static inline long liveconnection_ssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline long liveconnection_ssl_set_mode(SSL *ssl, long mode) {
    return SSL_set_mode(ssl, mode);
}
static inline long liveconnection_bio_pending(BIO *bio) {
    return (long)BIO_ctrl_pending(bio);
}
static inline long liveconnection_ssl_ctx_set_min_tls12(SSL_CTX *context) {
    return SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}
#endif
