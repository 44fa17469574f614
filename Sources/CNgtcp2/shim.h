// C boundary for the QUIC plugin: ngtcp2 0.12 + ngtcp2_crypto_gnutls.
//
// ngtcp2 0.12 spells most entry points as function-like macros over
// `*_versioned` functions (the macro supplies the struct version the headers
// were compiled with). Swift imports none of them, so each gets a `static inline`
// wrapper with a `pb_` prefix here. Nothing else belongs in this file.
//
// GnuTLS itself is GnuTLSSupport's (through CGnuTLS): no GnuTLS header is included
// here, and nothing here calls GnuTLS. ngtcp2_crypto_gnutls.h still includes
// <gnutls/gnutls.h> for its `gnutls_session_t` parameters, so that header's
// declarations are visible to Swift through this module; the plugin calls none of
// them (ModuleGraphTests checks), only the two ngtcp2_crypto_gnutls_configure_*.
#pragma once
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <stdarg.h>
#include <stdio.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <string.h>

#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

// The event loop's two Linux calls Swift's Glibc module leaves out: an eventfd
// to wake a sleeping loop from another thread, and ppoll for nanosecond
// timeouts (ngtcp2's pacing timers are microseconds apart on a fast link).
int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *tmo_p, const sigset_t *sigmask);

static inline int pb_eventfd_nonblocking(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

static inline int pb_ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout) {
  return ppoll(fds, nfds, timeout, NULL);
}

static inline void pb_ngtcp2_settings_default(ngtcp2_settings *settings) {
  ngtcp2_settings_default(settings);
}

static inline void pb_ngtcp2_transport_params_default(ngtcp2_transport_params *params) {
  ngtcp2_transport_params_default(params);
}

static inline int pb_ngtcp2_conn_client_new(ngtcp2_conn **pconn, const ngtcp2_cid *dcid,
                                            const ngtcp2_cid *scid, const ngtcp2_path *path,
                                            uint32_t version, const ngtcp2_callbacks *callbacks,
                                            const ngtcp2_settings *settings,
                                            const ngtcp2_transport_params *params,
                                            void *user_data) {
  return ngtcp2_conn_client_new(pconn, dcid, scid, path, version, callbacks, settings, params,
                                NULL, user_data);
}

static inline int pb_ngtcp2_conn_server_new(ngtcp2_conn **pconn, const ngtcp2_cid *dcid,
                                            const ngtcp2_cid *scid, const ngtcp2_path *path,
                                            uint32_t version, const ngtcp2_callbacks *callbacks,
                                            const ngtcp2_settings *settings,
                                            const ngtcp2_transport_params *params,
                                            void *user_data) {
  return ngtcp2_conn_server_new(pconn, dcid, scid, path, version, callbacks, settings, params,
                                NULL, user_data);
}

static inline int pb_ngtcp2_conn_read_pkt(ngtcp2_conn *conn, const ngtcp2_path *path,
                                          const uint8_t *pkt, size_t pktlen, ngtcp2_tstamp ts) {
  ngtcp2_pkt_info pi = {0};
  return ngtcp2_conn_read_pkt(conn, path, &pi, pkt, pktlen, ts);
}

static inline ngtcp2_ssize pb_ngtcp2_conn_writev_stream(ngtcp2_conn *conn, ngtcp2_path *path,
                                                        ngtcp2_pkt_info *pi, uint8_t *dest,
                                                        size_t destlen, ngtcp2_ssize *pdatalen,
                                                        uint32_t flags, int64_t stream_id,
                                                        const ngtcp2_vec *datav, size_t datavcnt,
                                                        ngtcp2_tstamp ts) {
  return ngtcp2_conn_writev_stream(conn, path, pi, dest, destlen, pdatalen, flags, stream_id,
                                   datav, datavcnt, ts);
}

static inline ngtcp2_ssize pb_ngtcp2_conn_write_connection_close(
    ngtcp2_conn *conn, ngtcp2_path *path, uint8_t *dest, size_t destlen,
    const ngtcp2_connection_close_error *ccerr, ngtcp2_tstamp ts) {
  ngtcp2_pkt_info pi = {0};
  return ngtcp2_conn_write_connection_close(conn, path, &pi, dest, destlen, ccerr, ts);
}

static inline void pb_ngtcp2_conn_get_conn_stat(ngtcp2_conn *conn, ngtcp2_conn_stat *cstat) {
  ngtcp2_conn_get_conn_stat(conn, cstat);
}

/// 0-RTT: the server's transport parameters as this connection received them
/// (encoded as the server sent them), for the client to remember with its session
/// ticket; the byte count, 0 when there are none yet, or a negative ngtcp2 error.
static inline ngtcp2_ssize pb_ngtcp2_encode_remote_transport_params(ngtcp2_conn *conn, uint8_t *dest, size_t destlen) {
  const ngtcp2_transport_params *params = ngtcp2_conn_get_remote_transport_params(conn);
  if (params == NULL) return 0;
  return ngtcp2_encode_transport_params(dest, destlen, NGTCP2_TRANSPORT_PARAMS_TYPE_ENCRYPTED_EXTENSIONS, params);
}

/// 0-RTT: hands a new client connection the server's remembered transport parameters
/// (what `pb_ngtcp2_encode_remote_transport_params` saved), so it may send early data
/// within them; 0 or a negative ngtcp2 error (malformed bytes).
static inline int pb_ngtcp2_conn_set_early_remote_transport_params(ngtcp2_conn *conn, const uint8_t *data, size_t datalen) {
  ngtcp2_transport_params params;
  int rv = ngtcp2_decode_transport_params(&params, NGTCP2_TRANSPORT_PARAMS_TYPE_ENCRYPTED_EXTENSIONS, data, datalen);
  if (rv != 0) return rv;
  ngtcp2_conn_set_early_remote_transport_params(conn, &params);
  return 0;
}

/// `ngtcp2_crypto_conn_ref.get_conn`: the plugin stores the connection itself in `user_data`.
static inline ngtcp2_conn *pb_get_conn_cb(ngtcp2_crypto_conn_ref *ref) {
  return (ngtcp2_conn *)ref->user_data;
}

/// `settings.log_printf` is variadic, which Swift cannot implement: ngtcp2's
/// debug log goes to stderr when the plugin is asked for it (PEERBENCH_QUIC_DEBUG=1).
static inline void pb_log_printf_cb(void *user_data, const char *fmt, ...) {
  (void)user_data;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

/// Swift cannot name a variadic C function as a value: this installs the logger.
static inline void pb_ngtcp2_settings_enable_log(ngtcp2_settings *settings) {
  settings->log_printf = pb_log_printf_cb;
}

// UDP segmentation offload. Building the control messages needs the CMSG_*
// macros, which Swift cannot import.

/// One sendmsg for `len` bytes of back-to-back QUIC packets of `segment_size`
/// bytes each (the last may be shorter): the kernel splits them into datagrams
/// (UDP_SEGMENT, "GSO"). `to` may be NULL on a connected socket.
static inline ssize_t pb_udp_send_segments(int fd, const void *buf, size_t len, size_t segment_size,
                                           const struct sockaddr *to, socklen_t tolen) {
  struct iovec iov = {(void *)buf, len};
  union {
    char buf[CMSG_SPACE(sizeof(uint16_t))];
    struct cmsghdr align;
  } control;
  struct msghdr msg;
  memset(&msg, 0, sizeof(msg));
  msg.msg_name = (void *)to;
  msg.msg_namelen = to ? tolen : 0;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (segment_size > 0 && segment_size < len) {
    memset(&control, 0, sizeof(control));
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof(control.buf);
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_UDP;
    cm->cmsg_type = UDP_SEGMENT;
    cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
    uint16_t seg = (uint16_t)segment_size;
    memcpy(CMSG_DATA(cm), &seg, sizeof(seg));
  }
  return sendmsg(fd, &msg, MSG_NOSIGNAL);
}

/// One recvmsg; `*segment_size` is the size of the datagrams the kernel
/// coalesced into `buf` (UDP_GRO), or 0 for a single datagram.
static inline ssize_t pb_udp_recv_segments(int fd, void *buf, size_t len, size_t *segment_size,
                                           struct sockaddr_storage *from, socklen_t *fromlen) {
  struct iovec iov = {buf, len};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control;
  struct msghdr msg;
  memset(&msg, 0, sizeof(msg));
  msg.msg_name = from;
  msg.msg_namelen = from ? sizeof(*from) : 0;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.buf;
  msg.msg_controllen = sizeof(control.buf);
  *segment_size = 0;
  ssize_t n = recvmsg(fd, &msg, 0);
  if (n < 0) return n;
  if (fromlen) *fromlen = msg.msg_namelen;
  for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
    if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO) {
      int v;
      memcpy(&v, CMSG_DATA(cm), sizeof(v));
      *segment_size = (size_t)v;
    }
  }
  return n;
}

/// Asks the kernel to coalesce received datagrams (UDP_GRO); 0 on success.
static inline int pb_udp_enable_gro(int fd) {
  int one = 1;
  return setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one));
}

/// The ngtcp2_crypto callbacks both sides need (keys, packet protection, path
/// challenges, version negotiation).
static inline void pb_ngtcp2_shared_crypto_callbacks(ngtcp2_callbacks *cb) {
  cb->recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb;
  cb->encrypt = ngtcp2_crypto_encrypt_cb;
  cb->decrypt = ngtcp2_crypto_decrypt_cb;
  cb->hp_mask = ngtcp2_crypto_hp_mask_cb;
  cb->update_key = ngtcp2_crypto_update_key_cb;
  cb->delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb;
  cb->delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb;
  cb->get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb;
  cb->version_negotiation = ngtcp2_crypto_version_negotiation_cb;
}

/// Fills the callbacks every client needs from ngtcp2_crypto (handshake, keys,
/// packet protection); the plugin adds its own stream callbacks and `rand`
/// (SecureRandom) afterwards.
static inline void pb_ngtcp2_client_crypto_callbacks(ngtcp2_callbacks *cb) {
  pb_ngtcp2_shared_crypto_callbacks(cb);
  cb->client_initial = ngtcp2_crypto_client_initial_cb;
  cb->recv_retry = ngtcp2_crypto_recv_retry_cb;
}

/// The server's counterpart of `pb_ngtcp2_client_crypto_callbacks`.
static inline void pb_ngtcp2_server_crypto_callbacks(ngtcp2_callbacks *cb) {
  pb_ngtcp2_shared_crypto_callbacks(cb);
  cb->recv_client_initial = ngtcp2_crypto_recv_client_initial_cb;
}
