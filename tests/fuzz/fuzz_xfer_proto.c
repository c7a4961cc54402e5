/* The transfer helper's messages (xfer/proto.h) from any bytes: a message
 * that parses encodes again to bytes that parse to the same message, and
 * every string it holds ends inside the message's store. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xfer/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct xfer_msg a, b;
static unsigned char enc[XFER_MSG_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!xfer_decode(data, size, &a))
		return 0;
	for (int i = 0; i < XS_N; i++)
		if (a.str[i] && (a.str[i] < a.store || a.str[i] + strlen(a.str[i]) >=
							     a.store + sizeof a.store))
			abort();
	size_t n = xfer_encode(&a, enc, sizeof enc);
	if (size <= sizeof enc && n != size)
		abort(); /* a message that fits encodes to as many bytes */
	if (!n)
		return 0;
	if (!xfer_decode(enc, n, &b) || a.type != b.type)
		abort();
	for (int i = 0; i < XS_N; i++)
		if (!a.str[i] != !b.str[i] || (a.str[i] && strcmp(a.str[i], b.str[i])))
			abort();
	for (int i = 0; i < XN_N; i++)
		if (a.has_num[i] != b.has_num[i] || a.num[i] != b.num[i])
			abort();
	return 0;
}
