#define _GNU_SOURCE
#include "CPeerBenchSystem.h"
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <unistd.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/tcp.h>  /* the kernel's tcp_info has the newer fields glibc's lacks */

int pb_setns_net(int fd) { return setns(fd, CLONE_NEWNET); }

int pb_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int pb_accept_cloexec(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC); }

int pb_spawn_close_from(void *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, from);
}

int pb_get_tcp_info(int fd, pb_tcp_info *out) {
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    memset(&ti, 0, sizeof ti);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0) return -1;
    out->retransmits = ti.tcpi_total_retrans;
    out->lost = ti.tcpi_lost;
    out->rtt_us = ti.tcpi_rtt;
    out->rttvar_us = ti.tcpi_rttvar;
    out->snd_cwnd = ti.tcpi_snd_cwnd;
    out->snd_mss = ti.tcpi_snd_mss;
    out->pmtu = ti.tcpi_pmtu;
    out->segs_out = ti.tcpi_segs_out;
    out->segs_in = ti.tcpi_segs_in;
    out->bytes_acked = ti.tcpi_bytes_acked;
    out->bytes_retrans = ti.tcpi_bytes_retrans;
    out->delivery_rate = ti.tcpi_delivery_rate;
    out->bytes_received = ti.tcpi_bytes_received;
    return 0;
}

_Static_assert(sizeof(pb_mmsghdr) == sizeof(struct mmsghdr), "pb_mmsghdr must match struct mmsghdr");

int pb_sendmmsg(int fd, pb_mmsghdr *msgs, unsigned int n, int flags) {
    return sendmmsg(fd, (struct mmsghdr *)msgs, n, flags);
}

int pb_recvmmsg(int fd, pb_mmsghdr *msgs, unsigned int n, int flags, struct timespec *timeout) {
    return recvmmsg(fd, (struct mmsghdr *)msgs, n, flags, timeout);
}

#include <linux/filter.h>
#include <netinet/in.h>

int pb_attach_peer_filter(int fd, int family, const uint8_t *address) {
    // A socket filter runs with the packet positioned at the transport header; the
    // IP header is reached through SKF_NET_OFF. The source address sits at offset 12
    // in IPv4 and 8 in IPv6; absolute word loads read it in network order.
    struct sock_filter prog[12];
    unsigned n = 0;
    int words = family == AF_INET6 ? 4 : 1;
    int offset = family == AF_INET6 ? 8 : 12;
    for (int i = 0; i < words; i++) {
        uint32_t w = ((uint32_t)address[4 * i] << 24) | ((uint32_t)address[4 * i + 1] << 16)
                   | ((uint32_t)address[4 * i + 2] << 8) | (uint32_t)address[4 * i + 3];
        prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(SKF_NET_OFF + offset + 4 * i));
        // Equal: go on to the next word (or the accept); different: jump to the drop.
        unsigned remaining = (unsigned)(2 * (words - i - 1)) + 1;
        prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, w, 0, (uint8_t)remaining);
    }
    prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0xFFFFFFFFu);
    prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
    struct sock_fprog fprog = { .len = (unsigned short)n, .filter = prog };
    return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &fprog, sizeof fprog);
}
