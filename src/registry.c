/*
 * The registry: every cipher+mode name fastblock answers to, and every
 * compiled kernel. Names follow OpenSSL where OpenSSL has them.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "registry.h"

static const fb_family *const families[] = {
	&fb_family_des, &fb_family_aes, &fb_family_rc6, &fb_family_mars,
	&fb_family_twofish, &fb_family_serpent,
};
#define NFAM (sizeof families / sizeof *families)


/* All names, built from families x key sizes x modes. */
#define C(name, fam, mode, klen) { name, &fb_family_##fam, mode, klen, sizeof(name) - 1 }
#define MODES64(prefix, fam, klen) \
	C(prefix "-ecb", fam, FB_ECB, klen), C(prefix "-cbc", fam, FB_CBC, klen), \
	C(prefix "-cfb", fam, FB_CFB, klen), C(prefix "-cfb8", fam, FB_CFB8, klen), \
	C(prefix "-ofb", fam, FB_OFB, klen), C(prefix "-ctr", fam, FB_CTR, klen)
#define MODES128(prefix, fam, klen) MODES64(prefix, fam, klen), C(prefix "-xts", fam, FB_XTS, klen)
#define SIZES(fam) MODES128(#fam "-128", fam, 16), MODES128(#fam "-192", fam, 24), \
	MODES128(#fam "-256", fam, 32)

static const fb_cipher ciphers[] = {
	MODES64("des", des, 8),
	MODES64("des-ede", des, 16),
	MODES64("des-ede3", des, 24),
	C("des-ede", des, FB_ECB, 16),
	C("des-ede3", des, FB_ECB, 24),
	SIZES(aes),
	SIZES(rc6),
	SIZES(mars),
	SIZES(twofish),
	SIZES(serpent),
	/* Variable key length (any length the specification allows). */
	MODES128("rc6", rc6, 0),
	MODES128("mars", mars, 0),
};
#define NCIPH (sizeof ciphers / sizeof *ciphers)

/* ASCII case-insensitive equality with a table name (all lower case):
 * strcasecmp goes through the locale for every character. */
static int name_is(const char *lower, const char *s)
{
	for (; *lower; lower++, s++) {
		unsigned ch = (unsigned char)*s;
		if ((ch - 'A' < 26u ? ch + 32 : ch) != (unsigned char)*lower)
			return 0;
	}
	return *s == 0;
}

const fb_cipher *fb_cipher_by_name(const char *name)
{
	if (!name)
		return NULL;
	/* Every one-shot call of the bindings starts here: through strcasecmp
	 * alone, 1,300 instructions for aes-128-ctr and 6,300 for
	 * serpent-256-xts; the length and the last letter pass over the rest. */
	size_t n = strlen(name);
	if (!n)
		return NULL;
	unsigned last = (unsigned char)name[n - 1]; /* the mode's last letter */
	last = last - 'A' < 26u ? last + 32 : last;
	for (size_t i = 0; i < NCIPH; i++) {
		const fb_cipher *c = &ciphers[i];
		if (c->name_len == n && (unsigned char)c->name[n - 1] == last && name_is(c->name, name) &&
		    c->family->parallel[0])
			return c;
	}
	return NULL;
}

const fb_cipher *fb_cipher_in_mode(const fb_cipher *c, enum fb_mode mode)
{
	for (size_t i = 0; c && i < NCIPH; i++)
		if (ciphers[i].family == c->family && ciphers[i].key_len == c->key_len &&
		    ciphers[i].mode == mode)
			return &ciphers[i];
	return NULL;
}

const fb_cipher *fb_cipher_at(size_t i)
{
	/* Skip families with no kernel compiled in. */
	for (size_t j = 0; j < NCIPH; j++) {
		if (!ciphers[j].family->parallel[0])
			continue;
		if (i-- == 0)
			return &ciphers[j];
	}
	return NULL;
}

const char *fb_cipher_name(const fb_cipher *c) { return c ? c->name : NULL; }
const char *fb_cipher_family(const fb_cipher *c) { return c ? c->family->name : NULL; }
enum fb_mode fb_cipher_mode(const fb_cipher *c) { return c ? c->mode : FB_ECB; }
size_t fb_cipher_block_size(const fb_cipher *c) { return c ? c->family->block_size : 0; }

size_t fb_cipher_key_len(const fb_cipher *c)
{
	if (!c)
		return 0;
	size_t k = c->key_len ? c->key_len : 16;
	return c->mode == FB_XTS ? 2 * k : k;
}

size_t fb_cipher_iv_len(const fb_cipher *c)
{
	return !c || c->mode == FB_ECB ? 0 : c->family->block_size;
}

int fb_cipher_key_ok(const fb_cipher *c, size_t len)
{
	if (c->mode == FB_XTS) {
		if (len % 2)
			return 0;
		len /= 2;
	}
	if (c->key_len)
		return len == c->key_len;
	return c->family->key_ok(len);
}

/* The option checks every entry point shares (declared in internal.h). */
int fb_options_check(const fb_cipher *c, const fb_options *opt, const uint8_t *key, size_t key_len)
{
	if (!opt)
		return FB_OK;
	if ((unsigned)opt->padding > FB_PAD_ISO9797_M2)
		return FB_ERR_ARGUMENT;
	if (opt->padding != FB_PAD_DEFAULT && opt->padding != FB_PAD_NONE &&
	    c->mode != FB_ECB && c->mode != FB_CBC)
		return FB_ERR_PADDING_MODE;
	if (opt->flags & ~(unsigned)(FB_FLAG_STRICT_KEYS | FB_FLAG_CONSTANT_TIME | FB_FLAG_THREADS))
		return FB_ERR_ARGUMENT;
	if ((opt->flags & FB_FLAG_STRICT_KEYS) && c->family->strict_check)
		return c->family->strict_check(key, key_len);
	return FB_OK;
}

/* ---- kernels ----------------------------------------------------------- */

/* All distinct kernels: the union of every family's lists. */
static size_t collect(const fb_kernel **out, size_t cap)
{
	size_t n = 0;
	for (size_t f = 0; f < NFAM; f++) {
		const fb_kernel *const *lists[2] = { families[f]->parallel, families[f]->serial };
		for (int l = 0; l < 2; l++)
			for (const fb_kernel *const *k = lists[l]; *k; k++) {
				size_t j = 0;
				while (j < n && out[j] != *k)
					j++;
				if (j == n && n < cap)
					out[n++] = *k;
			}
	}
	return n;
}

#define MAXK 96
const fb_kernel *fb_kernel_at(size_t i)
{
	const fb_kernel *all[MAXK];
	size_t n = collect(all, MAXK);
	return i < n ? all[i] : NULL;
}

const fb_kernel *fb_kernel_by_name(const char *name)
{
	/* Straight through the lists: this runs in fb_init when a kernel is forced. */
	for (size_t f = 0; f < NFAM; f++) {
		const fb_kernel *const *lists[2] = { families[f]->parallel, families[f]->serial };
		for (int l = 0; l < 2; l++)
			for (const fb_kernel *const *k = lists[l]; *k; k++)
				if (!strcasecmp((*k)->name, name))
					return *k;
	}
	return NULL;
}

int fb_kernel_known(const fb_kernel *k)
{
	for (size_t f = 0; f < NFAM; f++) {
		const fb_kernel *const *lists[2] = { families[f]->parallel, families[f]->serial };
		for (int l = 0; l < 2; l++)
			for (const fb_kernel *const *p = lists[l]; *p; p++)
				if (*p == k)
					return 1;
	}
	return 0;
}

int fb_kernel_supported(const fb_kernel *k)
{
	return (fb_cpu_features() & k->cpu_needs) == k->cpu_needs;
}

int fb_impl_at(size_t i, fb_impl_info *info)
{
	const fb_kernel *k = fb_kernel_at(i);
	if (!k || !info)
		return FB_ERR_ARGUMENT;
	static const char *const empty = "";
	info->name = k->name;
	info->family = k->family;
	info->note = k->note ? k->note : empty;
	info->constant_time = k->constant_time;
	info->supported = fb_kernel_supported(k);
	info->batch = k->batch;
	info->schedule_bytes = k->ks_size;
	/* Static strings per feature set would need storage; describe the
	 * needs through a small thread-local buffer. */
	static _Thread_local char needs[8][160];
	char *buf = needs[i % 8];
	fb_cpu_feature_names(k->cpu_needs, buf, sizeof needs[0]);
	info->cpu_needs = buf;
	return FB_OK;
}
