// Linux calls and structures Swift's Glibc module does not expose (they need
// _GNU_SOURCE or live in linux/ headers). Each is a thin wrapper, prefixed pb_.
#pragma once
#include <stdint.h>

/// setns(fd, CLONE_NEWNET): moves the calling thread into the network namespace behind fd.
int pb_setns_net(int fd);

/// pipe2(fds, O_CLOEXEC): both ends close-on-exec from their creation, so a child
/// another thread starts at that moment cannot inherit one (pipe, then fcntl, could).
int pb_pipe_cloexec(int fds[2]);

/// accept4(fd, NULL, NULL, SOCK_CLOEXEC): the accepted socket close-on-exec from the start.
int pb_accept_cloexec(int fd);

/// posix_spawn_file_actions_addclosefrom_np(actions, from) (glibc 2.34): the child
/// closes every descriptor from `from` up, whatever another thread left inheritable.
/// `actions` is a posix_spawn_file_actions_t *.
int pb_spawn_close_from(void *actions, int from);

/// The TCP_INFO fields PeerBench records.
typedef struct {
    uint32_t retransmits;      // tcpi_total_retrans: segments retransmitted over the connection
    uint32_t lost;             // tcpi_lost
    uint32_t rtt_us;           // tcpi_rtt: smoothed RTT, microseconds
    uint32_t rttvar_us;        // tcpi_rttvar
    uint32_t snd_cwnd;         // tcpi_snd_cwnd, segments
    uint32_t snd_mss;          // tcpi_snd_mss, bytes
    uint32_t pmtu;             // tcpi_pmtu
    uint32_t segs_out;         // tcpi_segs_out
    uint32_t segs_in;          // tcpi_segs_in
    uint64_t bytes_acked;      // tcpi_bytes_acked
    uint64_t bytes_retrans;    // tcpi_bytes_retrans
    uint64_t delivery_rate;    // tcpi_delivery_rate, bytes per second
    uint64_t bytes_received;   // tcpi_bytes_received: payload bytes received so far
} pb_tcp_info;

/// getsockopt(TCP_INFO) into `out`. Returns 0 or -1 with errno.
int pb_get_tcp_info(int fd, pb_tcp_info *out);

/// struct mmsghdr (which Swift's Glibc module hides behind _GNU_SOURCE), for
/// batched UDP I/O: one system call moves up to `n` datagrams.
#include <sys/socket.h>
#include <time.h>
typedef struct {
    struct msghdr msg_hdr;
    unsigned int msg_len;  // bytes sent or received for this message
} pb_mmsghdr;

/// sendmmsg(2). Returns the number of messages sent or -1 with errno.
int pb_sendmmsg(int fd, pb_mmsghdr *msgs, unsigned int n, int flags);

/// recvmmsg(2). Returns the number of messages received or -1 with errno.
int pb_recvmmsg(int fd, pb_mmsghdr *msgs, unsigned int n, int flags, struct timespec *timeout);

/// Attaches a classic BPF socket filter to `fd` that passes only packets whose IP
/// source address is `address` (4 bytes for AF_INET, 16 for AF_INET6, network byte
/// order) and drops every other one in the kernel: a listener never answers another
/// host's SYN, a datagram socket never sees (so never answers) another host's datagram.
/// Returns 0 or -1 with errno.
int pb_attach_peer_filter(int fd, int family, const uint8_t *address);

/// Netlink uapi for link inspection (routes, interface counters, nl80211 station info).
#include "pb_netlink.h"
