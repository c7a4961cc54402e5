/* The medium a protocol's PROTOCOL.INI section selects, per protocol: the
 * data of the medium rule (docs/setup.md, "The medium"). Every driver
 * warpdrv installs is Ethernet's (VirtualBox emulates no token ring). */
#ifndef WD_MEDIUM_H
#define WD_MEDIUM_H

#include <stddef.h>

struct medium_protocol {
	const char *drivername;          /* the section's DriverName: "ODI2NDI$" */
	const char *what;                /* "ODI2NDI (the NetWare requester's NDIS link)" */
	const char *const *ethernet;     /* the keywords that switch an Ethernet frame on */
	const char *const *other;        /* the keywords that select another medium */
	const char *source;
};

extern const struct medium_protocol medium_protocols[];
extern const size_t medium_nprotocols;

#endif
