// GnuTLS for the TLS-over-TCP plugin. Swift cannot import function-like macros or
// call through gnutls_free/gnutls_malloc (function-pointer variables), so the few
// needed are wrapped here as static inline functions with a pb_tls_ prefix.
// Kept apart from CNgtcp2 (the QUIC plugin's module) so the two plugins build alone.
#ifndef PEERBENCH_CGNUTLS_SHIM_H
#define PEERBENCH_CGNUTLS_SHIM_H

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <gnutls/crypto.h>
#include <string.h>

static inline void pb_tls_transport_set_fd(gnutls_session_t session, int fd) {
    gnutls_transport_set_int(session, fd);
}

static inline void pb_tls_free(void *p) { gnutls_free(p); }

/// Server side of TLS 1.3 PSK: hands GnuTLS the key stored with
/// gnutls_session_set_ptr (a gnutls_datum_t owned by the Swift session object),
/// whatever identity the client named; the identity is checked by the handshake's
/// binder, which only verifies when both sides hold the same key.
static inline int pb_tls_psk_server_key(gnutls_session_t session, const char *username, gnutls_datum_t *key) {
    (void)username;
    const gnutls_datum_t *stored = (const gnutls_datum_t *)gnutls_session_get_ptr(session);
    if (stored == NULL || stored->size == 0) return -1;
    key->data = (unsigned char *)gnutls_malloc(stored->size);
    if (key->data == NULL) return -1;
    memcpy(key->data, stored->data, stored->size);
    key->size = stored->size;
    return 0;
}

#endif
