/*
 * Key setup of the bitsliced DES kernels, portable: round-key bits as
 * all-zero or all-one 32-bit words, and des/vperm-avx512's T-layout round
 * keys. Only shifts by public amounts touch the key: constant-time. The
 * kernels set their keys with vector versions of the same loop
 * (des_vperm_avx512.c, des_bs_avx2.c; tests compare them with this one);
 * the multi-stream driver uses fb_des_bs_vperm_keys per lane.
 */
#include "des_bs_common.h"
#include "des_bs_sboxes.h"
#include "des_vperm_tables.h"

_Static_assert(sizeof(des_bs_ks) <= FB_KS_MAX, "des_bs_ks must fit FB_KS_MAX");

void fb_des_bs_vperm_keys(uint64_t vk[16], const uint8_t key[8])
{
	uint64_t k = fb_load64_be(key);
	for (int r = 0; r < 16; r++) {
		uint64_t q = 0;
		for (int j = 0; j < 8; j++) {
			uint64_t byte = (uint64_t)des_vp_key_sel[j] << 6;
			for (int i = 0; i < 6; i++)
				byte |= ((k >> (63 - des_bs_key_bit[48 * r + des_vp_key_bit[j][i]])) & 1) << i;
			q |= byte << (8 * j);
		}
		vk[r] = q;
	}
}

static void schedule(uint32_t rk[16 * 48], uint64_t vk[16], const uint8_t key[8])
{
	uint64_t k = fb_load64_be(key);
	for (int i = 0; i < 16 * 48; i++)
		rk[i] = 0u - (uint32_t)((k >> (63 - des_bs_key_bit[i])) & 1);
	/* the same bits in des/vperm-avx512's T layout */
	fb_des_bs_vperm_keys(vk, key);
}

int fb_des_bs_setkey(void *ksp, const uint8_t *key, size_t keylen)
{
	des_bs_ks *ks = ksp;
	if (keylen != 8 && keylen != 16 && keylen != 24)
		return FB_ERR_KEY_LENGTH;
	ks->nkeys = keylen == 8 ? 1 : 3;
	ks->use_table = 0;
	schedule(ks->rk[0], ks->vk[0], key);
	if (keylen > 8) {
		schedule(ks->rk[1], ks->vk[1], key + 8);
		schedule(ks->rk[2], ks->vk[2], keylen == 24 ? key + 16 : key);
	}
	return FB_OK;
}
