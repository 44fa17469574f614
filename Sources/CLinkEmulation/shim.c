#define _GNU_SOURCE
#include "CLinkEmulation.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>

_Static_assert(sizeof(struct virtio_net_hdr) == PBL_VNET_HDR_LEN, "virtio_net_hdr size");

int pbl_tun_open(const char *name) {
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_VNET_HDR;
    strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
    if (ioctl(fd, TUNSETIFF, &ifr) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int pbl_tun_set_offload(int fd, int segmentation) {
    unsigned long flags = segmentation ? (TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6) : 0;
    return ioctl(fd, TUNSETOFFLOAD, flags);
}

int pbl_set_timer_slack(unsigned long nanoseconds) { return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0); }

int pbl_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int pbl_eventfd_signal(int fd) {
    uint64_t one = 1;
    return write(fd, &one, sizeof one) == sizeof one ? 0 : -1;
}

int pbl_wait(int fd, int stopfd, int64_t timeout_ns) {
    struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = stopfd, .events = POLLIN}};
    struct timespec ts, *tsp = NULL;
    if (timeout_ns >= 0) {
        ts.tv_sec = timeout_ns / 1000000000;
        ts.tv_nsec = timeout_ns % 1000000000;
        tsp = &ts;
    }
    int n = ppoll(p, 2, tsp, NULL);
    if (n < 0) return -1;
    return ((p[0].revents & (POLLIN | POLLERR | POLLHUP)) ? 1 : 0) | ((p[1].revents & POLLIN) ? 2 : 0);
}

pbl_packet_info pbl_packet_inspect(const uint8_t *frame, size_t len) {
    pbl_packet_info info = {1, len > PBL_VNET_HDR_LEN ? (uint32_t)(len - PBL_VNET_HDR_LEN) : 0};
    if (len <= PBL_VNET_HDR_LEN) return info;
    struct virtio_net_hdr h;
    memcpy(&h, frame, sizeof h);
    uint8_t type = h.gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
    if (type == VIRTIO_NET_HDR_GSO_NONE || h.gso_size == 0) return info;
    // A TCP super-packet: the kernel will cut its payload into gso_size pieces,
    // each carrying a copy of the IP + TCP headers. Work out the header length
    // from the packet itself (hdr_len is only a hint).
    const uint8_t *ip = frame + PBL_VNET_HDR_LEN;
    size_t iplen = len - PBL_VNET_HDR_LEN, l3;
    if ((ip[0] >> 4) == 4) {
        l3 = (size_t)(ip[0] & 0x0f) * 4;
    } else if ((ip[0] >> 4) == 6) {
        l3 = 40;  // TSO6 packets carry no extension headers here
    } else {
        return info;
    }
    if (iplen < l3 + 20) return info;
    size_t headers = l3 + (size_t)(ip[l3 + 12] >> 4) * 4;
    if (iplen <= headers) return info;
    size_t payload = iplen - headers;
    uint32_t segs = (uint32_t)((payload + h.gso_size - 1) / h.gso_size);
    info.segments = segs;
    info.wire_bytes = (uint32_t)(iplen + (size_t)(segs - 1) * headers);
    return info;
}

#include <pthread.h>
#include <sched.h>

int pbl_set_realtime(int priority) {
    struct sched_param sp;
    memset(&sp, 0, sizeof sp);
    sp.sched_priority = priority;
    return pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
}
