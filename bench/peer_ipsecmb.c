/*
 * peer_ipsecmb.c - Intel Multi-Buffer Crypto for IPsec (ipsec-mb): its
 * multi-buffer DES and Triple-DES CBC through the job API. The library
 * gains its speed by running many independent CBC streams at once, so it
 * is measured that way: each call submits `streams` jobs (one per stream,
 * len bytes each) and flushes; the harness divides by streams x len.
 * All streams share one key (the key only selects a schedule in memory,
 * so the speed is the same with distinct keys) and continue their own
 * CBC chains from call to call.
 */
#include "bench_peer.h"

#include <intel-ipsec-mb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *mb_version(void)
{
	return imb_get_version_str();
}

typedef struct mb_handle {
	_Alignas(64) uint64_t ks[3][16]; /* DES key schedules K1, K2, K3 */
	const void *ks_ptr[3];           /* Triple-DES jobs point to this array */
	IMB_MGR *mgr;
	int encrypt, tdes;
	unsigned streams;
	uint8_t (*iv)[8];                /* per-stream chaining value, read by the jobs */
	uint8_t (*next)[8];              /* decryption: the next chaining values */
	char label[48];
} mb_handle;

static int mb_setkey(void *p, const uint8_t *key, const uint8_t *iv)
{
	mb_handle *h = p;
	if (h->tdes) {
		uint8_t k24[24];
		/* 16-byte keys (2-key) arrive as tdes == 16, 24-byte as tdes == 24 */
		bench_des_ede_key24(k24, key, (size_t)h->tdes);
		for (int i = 0; i < 3; i++)
			des_key_schedule(h->ks[i], k24 + 8 * i);
	} else {
		des_key_schedule(h->ks[0], key);
	}
	for (unsigned s = 0; s < h->streams; s++)
		memcpy(h->iv[s], iv, 8);
	return 0;
}

static void mb_close(void *p)
{
	mb_handle *h = p;
	if (!h)
		return;
	if (h->mgr)
		free_mb_mgr(h->mgr);
	free(h->iv);
	free(h->next);
	free(h);
}

static const char *arch_name(IMB_ARCH a)
{
	switch (a) {
	case IMB_ARCH_NOAESNI: return "no-aesni";
	case IMB_ARCH_SSE: return "sse";
	case IMB_ARCH_AVX: return "avx";
	case IMB_ARCH_AVX2: return "avx2";
	case IMB_ARCH_AVX512: return "avx512";
	default: return "?";
	}
}

static void *mb_open(const bench_alg *a, int encrypt, const uint8_t *key, const uint8_t *iv,
		     unsigned streams, const char **impl)
{
	if (strcmp(a->family, "des") || a->mode != BM_CBC || streams < 1)
		return NULL;
	mb_handle *h = aligned_alloc(64, (sizeof(mb_handle) + 63) & ~(size_t)63);
	if (!h)
		return NULL;
	memset(h, 0, sizeof(*h));
	h->encrypt = encrypt;
	h->tdes = a->key_len == 8 ? 0 : (int)a->key_len;
	h->streams = streams;
	for (int i = 0; i < 3; i++)
		h->ks_ptr[i] = h->ks[i];
	h->iv = calloc(streams, sizeof(*h->iv));
	h->next = calloc(streams, sizeof(*h->next));
	h->mgr = alloc_mb_mgr(0);
	if (!h->iv || !h->next || !h->mgr) {
		mb_close(h);
		return NULL;
	}
	IMB_ARCH arch = IMB_ARCH_NONE;
	/* bench/sim_avx2.sh's classes (avx2, avx2-vaes, avx2-client): ipsec-mb
	 * 1.3's one AVX2 architecture */
	const char *cls = getenv("FASTBLOCK_PEER_CLASS");
	if (cls && !strncmp(cls, "avx2", 4)) {
		init_mb_mgr_avx2(h->mgr);
		arch = IMB_ARCH_AVX2;
	} else {
		init_mb_mgr_auto(h->mgr, &arch);
	}
	if (imb_get_errno(h->mgr) || arch == IMB_ARCH_NONE) {
		mb_close(h);
		return NULL;
	}
	mb_setkey(h, key, iv);
	snprintf(h->label, sizeof(h->label), "job API %s x%u", arch_name(arch), streams);
	*impl = h->label;
	return h;
}

static int job_ok(const IMB_JOB *job)
{
	return job->status == IMB_STATUS_COMPLETED;
}

static int mb_crypt(void *p, uint8_t *buf, size_t len)
{
	mb_handle *h = p;
	IMB_MGR *m = h->mgr;
	unsigned done = 0, bad = 0;
	if (len % 8 || len == 0)
		return -1;
	/* Decryption in place overwrites the ciphertext that chains on, and a
	 * job reads its IV while running: keep the next chaining values apart. */
	uint8_t (*next)[8] = h->next;
	if (!h->encrypt)
		for (unsigned s = 0; s < h->streams; s++)
			memcpy(next[s], buf + (size_t)s * len + len - 8, 8);

	for (unsigned s = 0; s < h->streams; s++) {
		IMB_JOB *job = IMB_GET_NEXT_JOB(m);
		job->cipher_direction = h->encrypt ? IMB_DIR_ENCRYPT : IMB_DIR_DECRYPT;
		job->chain_order = h->encrypt ? IMB_ORDER_CIPHER_HASH : IMB_ORDER_HASH_CIPHER;
		job->cipher_mode = h->tdes ? IMB_CIPHER_DES3 : IMB_CIPHER_DES;
		job->hash_alg = IMB_AUTH_NULL;
		job->enc_keys = h->tdes ? (const void *)h->ks_ptr : (const void *)h->ks[0];
		job->dec_keys = job->enc_keys;
		job->key_len_in_bytes = h->tdes ? 24 : 8;
		job->src = buf + (size_t)s * len;
		job->dst = buf + (size_t)s * len;
		job->cipher_start_src_offset_in_bytes = 0;
		job->msg_len_to_cipher_in_bytes = len;
		job->hash_start_src_offset_in_bytes = 0;
		job->msg_len_to_hash_in_bytes = 0;
		job->iv = h->iv[s];
		job->iv_len_in_bytes = 8;
		job = IMB_SUBMIT_JOB(m);
		while (job) {
			done++;
			bad += !job_ok(job);
			job = IMB_GET_COMPLETED_JOB(m);
		}
	}
	IMB_JOB *job;
	while ((job = IMB_FLUSH_JOB(m)) != NULL) {
		done++;
		bad += !job_ok(job);
	}
	for (unsigned s = 0; s < h->streams; s++)
		memcpy(h->iv[s], h->encrypt ? buf + (size_t)s * len + len - 8 : next[s], 8);
	return done == h->streams && !bad ? 0 : -1;
}

const bench_peer bench_peer_ipsecmb16 = {
	"ipsec-mb", mb_version, 16, mb_open, mb_setkey, mb_crypt, mb_close,
};
const bench_peer bench_peer_ipsecmb32 = {
	"ipsec-mb", mb_version, 32, mb_open, mb_setkey, mb_crypt, mb_close,
};
const bench_peer bench_peer_ipsecmb64 = {
	"ipsec-mb", mb_version, 64, mb_open, mb_setkey, mb_crypt, mb_close,
};
/* As many streams as fastblock's 512-lane engine takes; the manager queues
 * any number of jobs and runs them 16 (AVX-512) at a time. */
const bench_peer bench_peer_ipsecmb128 = {
	"ipsec-mb", mb_version, 128, mb_open, mb_setkey, mb_crypt, mb_close,
};
const bench_peer bench_peer_ipsecmb256 = {
	"ipsec-mb", mb_version, 256, mb_open, mb_setkey, mb_crypt, mb_close,
};
const bench_peer bench_peer_ipsecmb512 = {
	"ipsec-mb", mb_version, 512, mb_open, mb_setkey, mb_crypt, mb_close,
};
