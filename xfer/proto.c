#include "xfer/proto.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Tags: a string's is 1 + its index, a number's 0x40 + its index. */
#define TAG_STR 1
#define TAG_NUM 0x40

void xfer_msg_init(struct xfer_msg *m, char type)
{
	memset(m->str, 0, sizeof m->str);
	memset(m->num, 0, sizeof m->num);
	memset(m->has_num, 0, sizeof m->has_num);
	m->type = type;
	m->fd = -1;
}

void xfer_set_num(struct xfer_msg *m, enum xfer_num k, int64_t v)
{
	m->num[k] = v;
	m->has_num[k] = true;
}

static bool known_type(char t)
{
	return t == XFER_FETCH || t == XFER_CHECK || t == XFER_PROGRESS || t == XFER_RESULT;
}

size_t xfer_encode(const struct xfer_msg *m, unsigned char *buf, size_t cap)
{
	size_t n = 0;
	if (cap < 1)
		return 0;
	buf[n++] = (unsigned char)m->type;
	for (int i = 0; i < XS_N; i++) {
		if (!m->str[i])
			continue;
		size_t len = strlen(m->str[i]);
		uint32_t l32 = (uint32_t)len;
		if (len > XFER_MSG_MAX || cap - n < 5 + len)
			return 0;
		buf[n++] = (unsigned char)(TAG_STR + i);
		memcpy(buf + n, &l32, 4);
		memcpy(buf + n + 4, m->str[i], len);
		n += 4 + len;
	}
	for (int i = 0; i < XN_N; i++) {
		if (!m->has_num[i])
			continue;
		if (cap - n < 9)
			return 0;
		buf[n++] = (unsigned char)(TAG_NUM + i);
		memcpy(buf + n, &m->num[i], 8);
		n += 8;
	}
	return n;
}

bool xfer_decode(const unsigned char *buf, size_t len, struct xfer_msg *m)
{
	if (len < 1 || !known_type((char)buf[0]))
		return false;
	xfer_msg_init(m, (char)buf[0]);
	size_t used = 0; /* of m->store */
	for (size_t i = 1; i < len;) {
		unsigned tag = buf[i++];
		if (tag >= TAG_STR && tag < TAG_STR + XS_N) {
			uint32_t l;
			if (len - i < 4)
				return false;
			memcpy(&l, buf + i, 4);
			i += 4;
			if (l > len - i || m->str[tag - TAG_STR] || memchr(buf + i, '\0', l) ||
			    l + 1 > sizeof m->store - used)
				return false;
			memcpy(m->store + used, buf + i, l);
			m->store[used + l] = '\0';
			m->str[tag - TAG_STR] = m->store + used;
			used += l + 1;
			i += l;
		} else if (tag >= TAG_NUM && tag < TAG_NUM + XN_N) {
			if (len - i < 8 || m->has_num[tag - TAG_NUM])
				return false;
			memcpy(&m->num[tag - TAG_NUM], buf + i, 8);
			m->has_num[tag - TAG_NUM] = true;
			i += 8;
		} else {
			return false;
		}
	}
	return true;
}

int xfer_send(int sock, const struct xfer_msg *m, int fd)
{
	unsigned char buf[XFER_MSG_MAX];
	size_t n = xfer_encode(m, buf, sizeof buf);
	if (!n) {
		errno = EMSGSIZE;
		return -1;
	}
	struct iovec iov = {buf, n};
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} c;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	if (fd >= 0) {
		memset(&c, 0, sizeof c);
		mh.msg_control = c.b;
		mh.msg_controllen = sizeof c.b;
		struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &fd, sizeof fd);
	}
	ssize_t w;
	do
		w = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	return w == (ssize_t)n ? 0 : -1;
}

/* The descriptors that came with a message: the first into *fd, any other
 * closed; false when there was more than one. */
static bool take_fds(struct msghdr *mh, int *fd)
{
	bool one = true;
	*fd = -1;
	for (struct cmsghdr *h = CMSG_FIRSTHDR(mh); h; h = CMSG_NXTHDR(mh, h)) {
		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int f;
			memcpy(&f, CMSG_DATA(h) + i * sizeof(int), sizeof f);
			if (*fd < 0) {
				*fd = f;
			} else {
				close(f);
				one = false;
			}
		}
	}
	return one;
}

int xfer_recv(int sock, struct xfer_msg *m)
{
	unsigned char buf[XFER_MSG_MAX];
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(4 * sizeof(int))];
	} c;
	struct iovec iov = {buf, sizeof buf};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.b,
			    .msg_controllen = sizeof c.b};
	ssize_t n;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n < 0 ? -1 : 0;
	int fd;
	bool one = take_fds(&mh, &fd);
	if (!one || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || !xfer_decode(buf, (size_t)n, m)) {
		if (fd >= 0)
			close(fd);
		errno = EBADMSG;
		return -1;
	}
	m->fd = fd;
	return 1;
}
