/*
 * peers.c - the list of peer adapters compiled into this binary
 * (see bench_peer.h; CMake defines FB_BENCH_HAVE_<LIB> for each library found).
 */
#include "bench_peer.h"

static const bench_peer *const all_peers[] = {
#ifdef FB_BENCH_HAVE_OPENSSL
	&bench_peer_openssl,
#endif
#ifdef FB_BENCH_HAVE_CRYPTOPP
	&bench_peer_cryptopp,
#endif
#ifdef FB_BENCH_HAVE_BOTAN
	&bench_peer_botan,
#endif
#ifdef FB_BENCH_HAVE_GCRYPT
	&bench_peer_gcrypt,
#endif
#ifdef FB_BENCH_HAVE_NETTLE
	&bench_peer_nettle,
#endif
#ifdef FB_BENCH_HAVE_IPSECMB
	&bench_peer_ipsecmb16,
	&bench_peer_ipsecmb32,
	&bench_peer_ipsecmb64,
	&bench_peer_ipsecmb128,
	&bench_peer_ipsecmb256,
	&bench_peer_ipsecmb512,
#endif
	NULL,
};

const bench_peer *const *bench_peers(void)
{
	return all_peers;
}
