// The kernel's netlink uapi (rtnetlink, generic netlink, nl80211) for RemoteLink's
// link inspection. Swift reads the constants straight from these headers so the
// message layouts cannot drift from the kernel's; the few macros Swift cannot import
// (they expand to other macros or expressions) are re-exported as pb_ constants.
#pragma once
#include <stdint.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_link.h>
#include <linux/genetlink.h>
#include <linux/nl80211.h>

/// GENL_ID_CTRL: the generic netlink controller's family id (resolves "nl80211").
static const uint16_t pb_genl_id_ctrl = GENL_ID_CTRL;
/// NLA_TYPE_MASK: an attribute's type without the nested / byte-order flags.
static const uint16_t pb_nla_type_mask = (uint16_t)NLA_TYPE_MASK;
/// sizeof(struct nlmsghdr), struct rtmsg, struct ifinfomsg, struct genlmsghdr, struct nlmsgerr.
static const uint32_t pb_nlmsghdr_size = sizeof(struct nlmsghdr);
static const uint32_t pb_rtmsg_size = sizeof(struct rtmsg);
static const uint32_t pb_ifinfomsg_size = sizeof(struct ifinfomsg);
static const uint32_t pb_genlmsghdr_size = sizeof(struct genlmsghdr);
