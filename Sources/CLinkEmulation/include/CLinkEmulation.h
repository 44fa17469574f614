// Linux calls the link emulator needs that Swift's Glibc module does not expose
// (linux/if_tun.h ioctls, ppoll with a nanosecond timeout, eventfd, prctl) and the
// one piece of packet parsing on the hot path. Each is a thin wrapper, prefixed pbl_.
#pragma once
#include <stddef.h>
#include <stdint.h>

/// Size of the virtio_net_hdr that prefixes every packet read from or written to
/// a TUN device opened with IFF_VNET_HDR.
#define PBL_VNET_HDR_LEN 10

/// Opens /dev/net/tun (non-blocking, close-on-exec) and creates or attaches the
/// TUN device `name` (IFF_TUN | IFF_NO_PI | IFF_VNET_HDR) in the calling thread's
/// network namespace. Returns the fd, or -1 with errno.
int pbl_tun_open(const char *name);

/// TUNSETOFFLOAD: with `segmentation` non-zero the kernel may hand us TCP
/// super-packets (TSO4/TSO6, partial checksums); with 0 every read is one IP packet.
int pbl_tun_set_offload(int fd, int segmentation);

/// prctl(PR_SET_TIMERSLACK) for the calling thread: the kernel may otherwise
/// delay our timed wake-ups by its default 50 us slack.
int pbl_set_timer_slack(unsigned long nanoseconds);

/// eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC): the emulator threads' stop signal.
int pbl_eventfd(void);
/// Adds 1 to an eventfd (wakes every waiter polling it).
int pbl_eventfd_signal(int fd);

/// Waits until `fd` is readable, `stopfd` is readable, or `timeout_ns` passes
/// (negative = no timeout), using ppoll's nanosecond timeout. Returns a bit mask:
/// 1 = fd readable, 2 = stop signalled, 0 = timed out; -1 with errno on error.
int pbl_wait(int fd, int stopfd, int64_t timeout_ns);

/// Facts about one packet as read from a vnet-header TUN: how many IP packets it
/// stands for on the wire (a TSO super-packet is several) and their total bytes.
typedef struct {
    uint32_t segments;
    uint32_t wire_bytes;
} pbl_packet_info;

/// Inspects `frame` (virtio_net_hdr followed by the IP packet, `len` bytes in all).
pbl_packet_info pbl_packet_inspect(const uint8_t *frame, size_t len);

/// Gives the calling thread SCHED_FIFO at `priority` so packet release times hold
/// even when benchmark peers or builds keep both cores busy. Returns 0 or an errno
/// value (EPERM without CAP_SYS_NICE; the caller then stays on the normal scheduler).
int pbl_set_realtime(int priority);
