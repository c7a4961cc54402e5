#include "installer/medium.h"

/* ODI2NDI, the NetWare Requester for OS/2's link from ODI to an NDIS MAC:
 * its section names the frames it uses, each "yes" or "no". Source: the
 * real PROTOCOL.INI behind the project's issue 20 (a token-ring NetWare
 * client: TOKEN-RING = "yes", each ETHERNET_ frame "no"). */
static const char *const odi2ndi_ethernet[] = {"ETHERNET_802.2", "ETHERNET_802.3",
					       "ETHERNET_II", "ETHERNET_SNAP", NULL};
static const char *const odi2ndi_other[] = {"TOKEN-RING", "TOKEN-RING_SNAP", NULL};

const struct medium_protocol medium_protocols[] = {
	{"ODI2NDI$", "ODI2NDI, the NetWare requester's link to NDIS", odi2ndi_ethernet,
	 odi2ndi_other, "issue 20: the NetWare requester's ODI2NDI section"},
};
const size_t medium_nprotocols = sizeof medium_protocols / sizeof *medium_protocols;
