// SPDX-License-Identifier: MIT
/* The sendmsg send paths: a whole train in one sendmsg with UDP GSO, with or without MSG_ZEROCOPY
 * (completions read from the error queue as id ranges), and one datagram per send by sendmmsg. */
#include <errno.h>
#include <time.h>
#include <linux/errqueue.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "compat.h"
#include "sendpath_impl.h"

int zcs_sendpath_set_gso(struct zcs_sendpath *sp, size_t gso_size)
{
	const int v = (int)gso_size;

	if (gso_size > UINT16_MAX)
		return -EINVAL;
	if (setsockopt(sp->fd, SOL_UDP, UDP_SEGMENT, &v, sizeof(v)) < 0)
		return -errno;
	sp->gso_size = gso_size;
	return 0;
}

ssize_t zcs_sendpath_msg_train(struct zcs_sendpath *sp, struct zcs_train *t, bool zerocopy)
{
	struct iovec iov = { .iov_base = t->buf, .iov_len = t->bytes };
	const struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	const ssize_t n = sendmsg(sp->fd, &msg, zerocopy ? MSG_ZEROCOPY : 0);

	if (n < 0) {
		const int e = errno;

		/* a send that fails after its data was taken (a GSO segment over the route's MTU)
		 * still used up a number, and its notification is already queued: read it now, so
		 * the next send gets the kernel's next number (see zcs_sendpath_msgzc_reap) */
		if (zerocopy)
			zcs_sendpath_msgzc_reap(sp);
		return -e;
	}
	if (zerocopy) {
		/* the kernel numbered this send zc_next_id: a failed send that took a number had its
		 * notification read at once (above), which moved zc_next_id past it */
		sp->zc_table[sp->zc_next_id & sp->zc_mask] = t;
		sp->zc_next_id++;
		sp->inflight++;
		sp->st.zc_sends++;
	}
	return n;
}

/* One datagram per send, a train per sendmmsg; a connection refusal (a stale ICMP error that the
 * kernel reports on the next send instead of sending) is counted and the rest sent again.  A
 * failure part-way leaves the datagrams sent in *sent: the next try starts after them. */
ssize_t zcs_sendpath_plain_train(struct zcs_sendpath *sp, const struct zcs_train *t,
				 uint16_t *sent)
{
	struct mmsghdr mm[ZCS_TRAIN_MAX_SEGS];
	struct iovec iov[ZCS_TRAIN_MAX_SEGS];
	const size_t count = t->count < ZCS_TRAIN_MAX_SEGS ? t->count : ZCS_TRAIN_MAX_SEGS;
	size_t done = *sent, bytes = 0;
	int refused = 0;

	memset(mm, 0, sizeof(mm));
	for (size_t k = 0; k < count; k++) {
		iov[k].iov_base = t->buf + k * t->seg;
		iov[k].iov_len = t->lens[k];
		mm[k].msg_hdr.msg_iov = &iov[k];
		mm[k].msg_hdr.msg_iovlen = 1;
		bytes += t->lens[k];
	}
	while (done < count) {
		const int n = sendmmsg(sp->fd, mm + done, (unsigned)(count - done), 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECONNREFUSED && refused++ < 4) {
				sp->st.refused++; /* not an error: see zcs_sendpath_stats */
				continue;
			}
			*sent = (uint16_t)done;
			return -errno;
		}
		done += (size_t)n;
	}
	*sent = 0;
	return (ssize_t)bytes;
}

int zcs_sendpath_msgzc_probe(struct zcs_sendpath *sp)
{
	const int one = 1;

	if (setsockopt(sp->fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) < 0)
		return -errno;
	return 0;
}

/* Reads every notification now queued.  One notification covers the ids ee_info..ee_data
 * (inclusive, serial: they may wrap); the code says whether the kernel copied after all. */
size_t zcs_sendpath_msgzc_reap(struct zcs_sendpath *sp)
{
	size_t completed = 0;

	for (;;) {
		union {
			char buf[CMSG_SPACE(sizeof(struct sock_extended_err) + sizeof(struct sockaddr_storage))];
			struct cmsghdr align;
		} control;
		struct msghdr msg = { .msg_control = control.buf, .msg_controllen = sizeof(control.buf) };
		struct sock_extended_err ee;
		struct cmsghdr *cm;

		if (recvmsg(sp->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			break;
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			if (!((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
			      (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR)))
				continue;
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			/* anything else here is an ICMP error: the send path does not care */
			if (ee.ee_origin != SO_EE_ORIGIN_ZEROCOPY || ee.ee_errno != 0)
				continue;
			/* ids from zc_next_id on were not given to any train: failed sends used them
			 * (the kernel numbers a send before it may fail), so ours continue after */
			if ((int32_t)(ee.ee_data - sp->zc_next_id) >= 0)
				sp->zc_next_id = ee.ee_data + 1;
			for (uint32_t id = ee.ee_info;; id++) {
				struct zcs_train **const slot = &sp->zc_table[id & sp->zc_mask];

				if (*slot) {
					sp->done(sp->ctx, *slot);
					*slot = NULL;
					sp->inflight--;
					sp->st.zc_completions++;
					if (ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
						sp->st.zc_copied++;
					completed++;
				}
				if (id == ee.ee_data)
					break;
			}
		}
	}
	return completed;
}
