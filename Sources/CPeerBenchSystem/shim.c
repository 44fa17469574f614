#define _GNU_SOURCE
#include "CPeerBenchSystem.h"
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/tcp.h>  /* the kernel's tcp_info has the newer fields glibc's lacks */

int pb_setns_net(int fd) { return setns(fd, CLONE_NEWNET); }

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
    return 0;
}

_Static_assert(sizeof(pb_mmsghdr) == sizeof(struct mmsghdr), "pb_mmsghdr must match struct mmsghdr");

int pb_sendmmsg(int fd, pb_mmsghdr *msgs, unsigned int n, int flags) {
    return sendmmsg(fd, (struct mmsghdr *)msgs, n, flags);
}

int pb_recvmmsg(int fd, pb_mmsghdr *msgs, unsigned int n, int flags, struct timespec *timeout) {
    return recvmmsg(fd, (struct mmsghdr *)msgs, n, flags, timeout);
}
