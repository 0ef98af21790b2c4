/*
 * Which implementation runs, for every machine class, cipher, mode and
 * direction, short and long messages, with and without constant time:
 * src/select.c asked with each class's CPU bits, whatever this CPU is,
 * against the expected names written out below. Then, on this CPU, that
 * contexts and one-shot calls run what the selection says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../src/select.h"
#include "../src/registry.h"

#define SSE (FB_CPU_SSE2 | FB_CPU_SSSE3 | FB_CPU_SSE41)
#define ZEN2 (SSE | FB_CPU_AESNI | FB_CPU_PCLMUL | FB_CPU_AVX | FB_CPU_AVX2 | FB_CPU_BMI2)
#define ZEN3 (ZEN2 | FB_CPU_VAES | FB_CPU_VPCLMUL)
#define AVX512_ALL (ZEN3 | FB_CPU_AVX512 | FB_CPU_AVX512VBMI | FB_CPU_AVX512VBMI2 | FB_CPU_GFNI | \
		    FB_CPU_AVX512BITALG)

typedef struct {
	const char *family;
	const char *par, *ser;       /* long messages, no flags */
	const char *par_ct, *ser_ct; /* FB_FLAG_CONSTANT_TIME; NULL: refused */
	/* the single blocks of ECB, CTR and CBC decryption: the ladder's last
	 * rung (NULL: the parallel kernel), without and with the flag */
	const char *one, *one_ct;
} expect;

typedef struct {
	const char *name;
	uint32_t cpu;
	expect fam[6];
} machine;

static const machine machines[] = {
	{ "AVX-512 + GFNI + VAES (Sapphire Rapids)", AVX512_ALL | FB_CPU_SLOW_BEXTR, {
		{ "des", "des/bs-avx512", "des/table64-shift", "des/bs-avx512", "des/gfni-avx512", "des/table",
		  "des/gfni-avx512" },
		{ "aes", "aes/vaes-avx512", "aes/aesni", "aes/vaes-avx512", "aes/aesni", "aes/aesni",
		  "aes/aesni" },
		{ "rc6", "rc6/avx512", "rc6/portable", "rc6/avx512", "rc6/portable", "rc6/portable", "rc6/portable" },
		{ "mars", "mars/avx512", "mars/portable", "mars/permute-avx512", "mars/permute-avx512",
		  "mars/portable", NULL },
		{ "twofish", "twofish/avx512-gfni", "twofish/table-avx512-tree", "twofish/avx512-gfni-ct",
		  "twofish/avx512-gfni-ct", "twofish/table-avx512-tree", NULL },
		{ "serpent", "serpent/avx512", "serpent/avx512", "serpent/avx512", "serpent/avx512", NULL, NULL } } },
	{ "AVX-512 + GFNI + VAES on AMD Zen (Zen 4)", AVX512_ALL | FB_CPU_AMD_ZEN, {
		{ "des", "des/bs-avx512-t2b", "des/table64-bmi2", "des/bs-avx512-t2b", "des/gfni-avx512", "des/table-bmi2",
		  "des/gfni-avx512" },
		{ "aes", "aes/vaes-avx512", "aes/aesni", "aes/vaes-avx512", "aes/aesni", "aes/aesni",
		  "aes/aesni" },
		{ "rc6", "rc6/avx512", "rc6/portable", "rc6/avx512", "rc6/portable", "rc6/portable", "rc6/portable" },
		{ "mars", "mars/avx512", "mars/portable", "mars/permute-avx512", "mars/permute-avx512",
		  "mars/portable", NULL },
		{ "twofish", "twofish/avx512-gfni", "twofish/table-avx512-t0", "twofish/avx512-gfni-ct",
		  "twofish/avx512-gfni-ct", "twofish/table-avx512", NULL },
		{ "serpent", "serpent/avx512", "serpent/bitslice-bmi2", "serpent/avx512", "serpent/bitslice-bmi2",
		  NULL, NULL } } },
	{ "AVX-512 + GFNI + VAES on AMD Zen 5", AVX512_ALL | FB_CPU_AMD_ZEN | FB_CPU_SLOW_VEC_CHAIN, {
		{ "des", "des/bs-avx512-t2b", "des/table64-bmi2", "des/bs-avx512-t2b", "des/gfni-avx512", "des/table-bmi2",
		  "des/gfni-avx512" },
		{ "aes", "aes/vaes-avx512", "aes/aesni", "aes/vaes-avx512", "aes/aesni", "aes/aesni",
		  "aes/aesni" },
		{ "rc6", "rc6/avx512", "rc6/portable", "rc6/avx512", "rc6/portable", "rc6/portable", "rc6/portable" },
		{ "mars", "mars/avx512", "mars/portable", "mars/permute-avx512", "mars/permute-avx512",
		  "mars/portable", NULL },
		{ "twofish", "twofish/avx512-gfni", "twofish/table-avx512", "twofish/avx512-gfni-ct",
		  "twofish/avx512-gfni-ct", "twofish/table-avx512", NULL },
		{ "serpent", "serpent/avx512", "serpent/bitslice-bmi2", "serpent/avx512", "serpent/bitslice-bmi2",
		  "serpent/bitslice-exact", "serpent/bitslice-exact" } } },
	{ "AVX2 + VAES, no AVX-512 (Zen 3)", ZEN3 | FB_CPU_AMD_ZEN, {
		{ "des", "des/bs-avx2", "des/table64-bmi2", "des/bs-avx2", "des/rotate", "des/table-bmi2", "des/rotate" },
		{ "aes", "aes/vaes-avx2", "aes/aesni", "aes/vaes-avx2", "aes/aesni", "aes/aesni", "aes/aesni" },
		{ "rc6", "rc6/avx2", "rc6/portable", "rc6/avx2", "rc6/portable", "rc6/portable", "rc6/portable" },
		{ "mars", "mars/avx2", "mars/portable", NULL, NULL, "mars/portable", NULL },
		{ "twofish", "twofish/table-avx2", "twofish/table-avx2-t0", NULL, NULL, NULL, NULL },
		{ "serpent", "serpent/bs-avx2", "serpent/bitslice-bmi2", "serpent/bs-avx2", "serpent/bitslice-bmi2",
		  "serpent/bitslice", "serpent/bitslice" } } },
	{ "AVX2 + AES-NI only, slow gathers and PDEP (Zen 2)", ZEN2 | FB_CPU_SLOW_GATHER | FB_CPU_SLOW_PDEP |
	  FB_CPU_AMD_ZEN, {
		{ "des", "des/bs-avx2", "des/table64", "des/bs-avx2", "des/rotate", "des/table-bmi2", "des/rotate" },
		{ "aes", "aes/aesni", "aes/aesni", "aes/aesni", "aes/aesni", NULL, NULL },
		{ "rc6", "rc6/avx2", "rc6/portable", "rc6/avx2", "rc6/portable", "rc6/portable", "rc6/portable" },
		{ "mars", "mars/table-avx2", "mars/portable", NULL, NULL, "mars/portable", NULL },
		{ "twofish", "twofish/table-avx2", "twofish/table-avx2-t0", NULL, NULL, NULL, NULL },
		{ "serpent", "serpent/bs-avx2", "serpent/bitslice-bmi2", "serpent/bs-avx2", "serpent/bitslice-bmi2",
		  "serpent/bitslice", "serpent/bitslice" } } },
	{ "AVX2 + VAES + GFNI on Intel (client cores from Alder Lake; FASTBLOCK_CPU_MASK=41c0ff)",
	  ZEN3 | FB_CPU_GFNI | FB_CPU_SLOW_BEXTR, {
		{ "des", "des/bs-avx2-gfni", "des/table64-shift", "des/bs-avx2-gfni", "des/rotate", "des/table",
		  "des/rotate" },
		{ "aes", "aes/vaes-avx2", "aes/aesni", "aes/vaes-avx2", "aes/aesni", "aes/aesni", "aes/aesni" },
		{ "rc6", "rc6/avx2", "rc6/portable", "rc6/avx2", "rc6/portable", "rc6/portable", "rc6/portable" },
		{ "mars", "mars/avx2", "mars/portable", NULL, NULL, "mars/portable", NULL },
		{ "twofish", "twofish/avx2", "twofish/table-avx2-tree", NULL, NULL, "twofish/table-avx2-tree", NULL },
		{ "serpent", "serpent/bs-avx2-km", "serpent/bitslice-bmi2", "serpent/bs-avx2-km", "serpent/bitslice-bmi2",
		  "serpent/bitslice", "serpent/bitslice" } } },
	{ "AVX2 + AES-NI on Intel (FASTBLOCK_CPU_MASK=4000ff)", ZEN2 | FB_CPU_SLOW_BEXTR, {
		{ "des", "des/bs-avx2", "des/table64-shift", "des/bs-avx2", "des/rotate", "des/table", "des/rotate" },
		{ "aes", "aes/aesni", "aes/aesni", "aes/aesni", "aes/aesni", NULL, NULL },
		{ "rc6", "rc6/avx2", "rc6/portable", "rc6/avx2", "rc6/portable", "rc6/portable", "rc6/portable" },
		{ "mars", "mars/avx2", "mars/portable", NULL, NULL, "mars/portable", NULL },
		{ "twofish", "twofish/avx2", "twofish/table-avx2-tree", NULL, NULL, "twofish/table-avx2-tree", NULL },
		{ "serpent", "serpent/bs-avx2-km", "serpent/bitslice-bmi2", "serpent/bs-avx2-km", "serpent/bitslice-bmi2",
		  "serpent/bitslice", "serpent/bitslice" } } },
	{ "AVX2 + AES-NI on Intel under the GDS microcode (Skylake to Comet Lake)",
	  ZEN2 | FB_CPU_SLOW_BEXTR | FB_CPU_SLOW_GATHER, {
		{ "des", "des/bs-avx2", "des/table64-shift", "des/bs-avx2", "des/rotate", "des/table", "des/rotate" },
		{ "aes", "aes/aesni", "aes/aesni", "aes/aesni", "aes/aesni", NULL, NULL },
		{ "rc6", "rc6/avx2", "rc6/portable", "rc6/avx2", "rc6/portable", "rc6/portable", "rc6/portable" },
		{ "mars", "mars/table-avx2", "mars/portable", NULL, NULL, "mars/portable", NULL },
		{ "twofish", "twofish/table-avx2", "twofish/table-avx2-tree", NULL, NULL, NULL, NULL },
		{ "serpent", "serpent/bs-avx2-km", "serpent/bitslice-bmi2", "serpent/bs-avx2-km", "serpent/bitslice-bmi2",
		  "serpent/bitslice", "serpent/bitslice" } } },
	{ "AVX2 + AES-NI only (FASTBLOCK_CPU_MASK=ff)", ZEN2, {
		{ "des", "des/bs-avx2", "des/table64-shift", "des/bs-avx2", "des/rotate", "des/table-bmi2", "des/rotate" },
		{ "aes", "aes/aesni", "aes/aesni", "aes/aesni", "aes/aesni", NULL, NULL },
		{ "rc6", "rc6/avx2", "rc6/portable", "rc6/avx2", "rc6/portable", "rc6/portable", "rc6/portable" },
		{ "mars", "mars/avx2", "mars/portable", NULL, NULL, "mars/portable", NULL },
		{ "twofish", "twofish/avx2", "twofish/table-avx2-tree", NULL, NULL, "twofish/table-avx2-tree", NULL },
		{ "serpent", "serpent/bs-avx2-km", "serpent/bitslice-bmi2", "serpent/bs-avx2-km", "serpent/bitslice-bmi2",
		  "serpent/bitslice", "serpent/bitslice" } } },
	{ "portable (no SIMD)", 0, {
		{ "des", "des/table", "des/table64-shift", "des/rotate", "des/rotate", NULL, NULL },
		{ "aes", "aes/ct64", "aes/ct64", "aes/ct64", "aes/ct64", NULL, NULL },
		{ "rc6", "rc6/portable", "rc6/portable", "rc6/portable", "rc6/portable", NULL, NULL },
		{ "mars", "mars/portable", "mars/portable", NULL, NULL, NULL, NULL },
		{ "twofish", "twofish/table", "twofish/table", NULL, NULL, NULL, NULL },
		{ "serpent", "serpent/bitslice", "serpent/bitslice", "serpent/bitslice", "serpent/bitslice", NULL, NULL } } },
};

static int failures, checks;

static void check(int ok, const char *what, const char *cls, const char *cipher, int enc, size_t hint,
		  int ct, const char *got, const char *want)
{
	checks++;
	if (ok)
		return;
	failures++;
	if (failures <= 40)
		fprintf(stderr, "FAIL %s: %s, %s %s, %s bytes%s: got %s, want %s\n", what, cls, cipher,
			enc ? "encrypt" : "decrypt", hint == SIZE_MAX ? "streaming" : "short",
			ct ? ", constant time" : "", got ? got : "(refused)", want ? want : "(refused)");
}

static const char *name_of(const fb_kernel *k)
{
	return k ? k->name : NULL;
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* What the rows above say for one cipher, mode, direction, hint, flag. */
static void expected(const expect *e, uint32_t cpu, const fb_cipher *c, int enc, size_t hint, int ct,
		     const char **par, const char **ser)
{
	const char *p = ct ? e->par_ct : e->par, *s = ct ? e->ser_ct : e->ser;
	const char *one = ct ? e->one_ct : e->one;
	uint32_t gfni = FB_CPU_AVX512 | FB_CPU_AVX512VBMI | FB_CPU_AVX512BITALG | FB_CPU_GFNI;
	int des = !strcmp(e->family, "des");
	/* DES one-shot messages up to 640 bytes (AMD Zen) or 800 (others) in
	 * parallel modes run on des/gfni-avx512 alone where it runs (it is
	 * constant-time), else up to 32 bytes on des/table-bmi2 (des/table
	 * without BMI2, and up to 24 bytes where BEXTR is slow) alone */
	int small = 1;
	size_t gfni_max = cpu & FB_CPU_AMD_ZEN ? 640 : 800;
	if (des && hint <= gfni_max && (cpu & gfni) == gfni && fb_mode_parallel(c->mode, enc))
		p = s = "des/gfni-avx512";
	else if (des && !ct && hint <= 32)
		p = s = (cpu & FB_CPU_BMI2) && !((cpu & FB_CPU_SLOW_BEXTR) && hint <= 24) ? "des/table-bmi2"
											     : "des/table";
	else if ((small = 0), !fb_mode_parallel(c->mode, enc))
		p = s;
	else if (c->mode == FB_ECB || c->mode == FB_CTR || c->mode == FB_XTS || (c->mode == FB_CBC && !enc))
		s = p; /* no serial schedule of its own (XTS: the tweak on the data key's format) */
	/* single blocks of a wide mode with no serial kernel of its own (or
	 * none that keeps the flag) go to the ladder's last rung */
	if (!small && p && s && !strcmp(s, p) && one && fb_mode_parallel(c->mode, enc))
		s = one;
	*par = p;
	*ser = s;
}

static void check_machine(const machine *m)
{
	static const size_t hints[] = { 16, 32, 33, 640, 641, 800, 801, 1024, 4096, SIZE_MAX };
	for (size_t i = 0; fb_cipher_at(i); i++) {
		const fb_cipher *c = fb_cipher_at(i);
		const expect *e = NULL;
		for (int f = 0; f < 6; f++)
			if (!strcmp(m->fam[f].family, c->family->name))
				e = &m->fam[f];
		if (!e) {
			check(0, "family listed", m->name, c->name, 1, SIZE_MAX, 0, NULL, c->family->name);
			continue;
		}
		for (int enc = 0; enc < 2; enc++)
			for (size_t h = 0; h < sizeof hints / sizeof *hints; h++)
				for (int ct = 0; ct < 2; ct++) {
					fb_selection_query q = { c->family, c->mode, enc, hints[h],
								 ct ? FB_FLAG_CONSTANT_TIME : 0u, m->cpu, NULL,
								 fb_cipher_key_len(c) };
					fb_selection sel = { 0 };
					int rc = fb_select(&q, &sel);
					const char *wp, *ws;
					expected(e, m->cpu, c, enc, hints[h], ct, &wp, &ws);
					if (rc) {
						check(!wp && rc == FB_ERR_NOT_CONSTANT_TIME, "refusal", m->name, c->name,
						      enc, hints[h], ct, NULL, wp);
						continue;
					}
					check(same(name_of(sel.par), wp), "parallel kernel", m->name, c->name, enc,
					      hints[h], ct, name_of(sel.par), wp);
					check(same(name_of(sel.ser), ws), "serial kernel", m->name, c->name, enc,
					      hints[h], ct, name_of(sel.ser), ws);
					int wide = fb_mode_parallel(c->mode, enc) && sel.par->batch > 1;
					check(sel.wide == wide, "wide batches", m->name, c->name, enc, hints[h], ct,
					      sel.wide ? "wide" : "narrow", wide ? "wide" : "narrow");
				}
	}
}

/* The rows the mode table must never lose, spelled out. */
static void check_named_rows(void)
{
	const struct { uint32_t cpu; const char *cipher; int enc; const char *par; int wide; } rows[] = {
		/* CFB8 decryption: every shift register is known, so the widest kernel */
		{ ZEN2, "des-ede3-cfb8", 0, "des/bs-avx2", 1 },
		{ AVX512_ALL, "des-ede3-cfb8", 0, "des/bs-avx512", 1 },
		{ ZEN3, "aes-128-cfb8", 0, "aes/vaes-avx2", 1 },
		{ ZEN2, "serpent-256-cfb8", 0, "serpent/bs-avx2-km", 1 },
		{ ZEN2 | FB_CPU_AMD_ZEN, "serpent-256-cfb8", 0, "serpent/bs-avx2", 1 },
		{ ZEN2, "des-ede3-cfb8", 1, "des/table64-shift", 0 },
		{ ZEN2, "des-ede3-ofb", 0, "des/table64-shift", 0 },
		{ ZEN2 | FB_CPU_AMD_ZEN, "des-ede3-cfb8", 1, "des/table64-bmi2", 0 }, /* high byte registers on AMD */
		{ ZEN2 | FB_CPU_AMD_ZEN | FB_CPU_SLOW_PDEP, "des-ede3-cbc", 1, "des/table64", 0 }, /* no PDEP on Zen 2 */
		{ SSE | FB_CPU_AMD_ZEN, "des-ede3-cbc", 1, "des/table64", 0 }, /* no BMI2 */
		{ ZEN2, "des-ede3-cbc", 0, "des/bs-avx2", 1 },
		{ ZEN2, "des-ede3-cfb", 0, "des/bs-avx2", 1 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		const fb_cipher *c = fb_cipher_by_name(rows[i].cipher);
		fb_selection_query q = { c->family, c->mode, rows[i].enc, SIZE_MAX, 0, rows[i].cpu, NULL,
					 fb_cipher_key_len(c) };
		fb_selection sel = { 0 };
		int rc = fb_select(&q, &sel);
		check(!rc && same(name_of(sel.par), rows[i].par) && sel.wide == rows[i].wide, "named row",
		      "", rows[i].cipher, rows[i].enc, SIZE_MAX, 0, rc ? NULL : name_of(sel.par), rows[i].par);
	}
}

/* The multi-stream engine per class and stream count (fb_select_lanes):
 * des/table-bmi2's four lanes (des/table's without BMI2) from 2 streams
 * where no wider engine pays, des/bs-avx2's from 26, des/gfni-avx512 from
 * one, des/bs-avx512(-t2b) from 72 streams (DES) and from 68 (EDE) on AMD
 * Zen, 88 elsewhere; "-" for one stream
 * at a time. 8 KB a stream (1,024 blocks). */
static void check_lane_choice(void)
{
	const struct { uint32_t cpu; const char *cipher; size_t streams; unsigned flags; const char *want; } rows[] = {
		{ ZEN2, "des-ede3-cbc", 1, 0, "-" },
		{ ZEN2, "des-ede3-cbc", 2, 0, "des/table-bmi2" },
		{ ZEN2, "des-cbc", 25, 0, "des/table-bmi2" },
		{ ZEN2 | FB_CPU_AMD_ZEN | FB_CPU_SLOW_GATHER, "des-ede3-cbc", 25, 0, "des/table-bmi2" },
		{ ZEN2, "des-ede3-cbc", 26, 0, "des/bs-avx2" },
		{ ZEN2, "des-ede3-cbc", 8, FB_FLAG_CONSTANT_TIME, "-" }, /* des/table is not constant-time */
		{ ZEN2, "des-ede3-cbc", 64, FB_FLAG_CONSTANT_TIME, "des/bs-avx2" },
		{ SSE, "des-ede3-cbc", 2, 0, "des/table" },
		{ SSE, "des-cbc", 512, 0, "des/table" },
		{ AVX512_ALL, "des-ede3-cbc", 2, 0, "des/gfni-avx512" },
		{ AVX512_ALL, "des-ede3-cbc", 87, 0, "des/gfni-avx512" }, /* Intel */
		{ AVX512_ALL, "des-ede3-cbc", 88, 0, "des/bs-avx512" },
		{ AVX512_ALL, "des-cbc", 71, 0, "des/gfni-avx512" },
		{ AVX512_ALL, "des-cbc", 72, 0, "des/bs-avx512" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "des-ede3-cbc", 67, 0, "des/gfni-avx512" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "des-ede3-cbc", 68, 0, "des/bs-avx512-t2b" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "des-cbc", 71, 0, "des/gfni-avx512" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "des-cbc", 72, 0, "des/bs-avx512-t2b" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		const fb_cipher *c = fb_cipher_by_name(rows[i].cipher);
		fb_selection_query q = { c->family, FB_CBC, 1, SIZE_MAX, rows[i].flags, rows[i].cpu, NULL,
					 fb_cipher_key_len(c) };
		fb_lane_choice e = { 0 };
		int rc = fb_select_lanes(&q, rows[i].streams, 1024, fb_cipher_key_len(c) <= 8, &e);
		const char *got = rc ? NULL : e.lanes ? name_of(e.kernel) : "-";
		check(got && same(got, rows[i].want), "lane engine", "", rows[i].cipher, 1, rows[i].streams,
		      rows[i].flags != 0, got, rows[i].want);
	}
}

/* CBC and CFB decryption: a stream of at least a wide batch, or of at least
 * as many blocks as there are streams, runs alone on the ladder's kernel
 * for its length ("whole ..."; it needs the kernel's fused step), else the
 * lanes take the set as for encryption. */
static void check_whole_streams(void)
{
	const struct { uint32_t cpu; const char *cipher; int enc; size_t streams, blocks; unsigned flags;
		       const char *want; } rows[] = {
		{ ZEN2, "des-ede3-cbc", 0, 16, 1024, 0, "whole des/bs-avx2" },
		{ ZEN2, "des-ede3-cfb", 0, 300, 256, 0, "whole des/bs-avx2" },  /* a whole batch */
		{ ZEN2, "des-ede3-cbc", 0, 64, 64, 0, "whole des/bs-avx2" },
		{ ZEN2, "des-ede3-cbc", 0, 65, 64, 0, "des/bs-avx2" },          /* the lanes fill better */
		{ ZEN2, "des-cbc", 0, 16, 20, 0, "whole des/table-bmi2" },       /* the ladder's rung */
		{ ZEN2, "des-cfb", 0, 16, 20, 0, "whole des/table-bmi2" },       /* its fused CFB */
		{ ZEN2, "des-ede3-ofb", 0, 16, 1024, 0, "des/table-bmi2" },      /* a chain both ways */
		{ ZEN2, "des-ede3-cbc", 1, 16, 1024, 0, "des/table-bmi2" },
		{ ZEN2, "des-ede3-cbc", 0, 16, 1024, FB_FLAG_CONSTANT_TIME, "whole des/bs-avx2" },
		{ SSE, "des-ede3-cbc", 0, 4, 1024, 0, "des/table" },           /* no wide kernel */
		{ AVX512_ALL, "des-ede3-cbc", 0, 16, 1024, 0, "whole des/bs-avx512" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "des-ede3-cfb", 0, 16, 1024, 0, "whole des/bs-avx512-t2b" },
		{ AVX512_ALL, "des-ede3-cbc", 0, 64, 64, 0, "whole des/gfni-avx512" }, /* one-shot row */
		{ AVX512_ALL, "des-ede3-cbc", 0, 512, 64, 0, "des/bs-avx512" },
		{ AVX512_ALL, "des-ede3-cbc", 1, 512, 1, 0, "des/bs-avx512" }, /* KCVs: one block a stream */
		{ AVX512_ALL, "des-cbc", 1, 72, 1, 0, "des/bs-avx512" },
		{ AVX512_ALL, "des-ede3-cbc", 1, 87, 1, 0, "des/gfni-avx512" },
		{ AVX512_ALL, "des-ede3-cbc", 1, 88, 1, 0, "des/bs-avx512" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "des-cbc", 1, 72, 1, 0, "des/bs-avx512-t2b" },
		{ ZEN2, "des-ede3-cbc", 1, 512, 1, 0, "des/bs-avx2" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		const fb_cipher *c = fb_cipher_by_name(rows[i].cipher);
		fb_selection_query q = { c->family, fb_cipher_mode(c), rows[i].enc, SIZE_MAX, rows[i].flags, rows[i].cpu,
					 NULL, fb_cipher_key_len(c) };
		fb_lane_choice e = { 0 };
		char got[80];
		int rc = fb_select_lanes(&q, rows[i].streams, rows[i].blocks, fb_cipher_key_len(c) <= 8, &e);
		snprintf(got, sizeof got, "%s%s", e.whole ? "whole " : "", e.lanes || e.whole ? name_of(e.kernel) : "-");
		check(!rc && same(got, rows[i].want), "whole streams", "", rows[i].cipher, rows[i].enc,
		      rows[i].streams, rows[i].flags != 0, rc ? NULL : got, rows[i].want);
	}
}

/* The ladder for short parallel runs: which narrower kernels, below how
 * many blocks, per class, mode, key length and options; none when forced,
 * serial or in a one-shot row. */
static void check_ladder(void)
{
	struct { uint32_t cpu; const char *cipher; int enc; unsigned flags; const char *forced;
		 size_t key_len, hint; const char *want; } rows[] = {
		{ AVX512_ALL, "aes-128-ecb", 1, 0, NULL, 16, SIZE_MAX, "aes/aesni<4" }, /* Intel */
		{ AVX512_ALL, "aes-256-ctr", 0, 0, NULL, 32, SIZE_MAX, "aes/aesni<4" },
		{ AVX512_ALL, "aes-128-cbc", 0, FB_FLAG_CONSTANT_TIME, NULL, 16, SIZE_MAX, "aes/aesni<4" },
		{ AVX512_ALL, "aes-128-xts", 1, 0, NULL, 16, SIZE_MAX, "aes/aesni<4" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "aes-128-ecb", 1, 0, NULL, 16, SIZE_MAX, "aes/vaes-avx2<16 aes/aesni<4" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN | FB_CPU_SLOW_VEC_CHAIN, "aes-128-xts", 0, 0, NULL, 16, SIZE_MAX,
		  "aes/vaes-avx2<16 aes/aesni<4" }, /* Zen 5 */
		{ AVX512_ALL, "aes-128-cbc", 1, 0, NULL, 16, SIZE_MAX, "" },  /* a serial chain */
		{ AVX512_ALL, "aes-128-ecb", 1, 0, "aes/vaes-avx512", 16, SIZE_MAX, "" }, /* forced */
		{ ZEN3, "aes-128-ecb", 1, 0, NULL, 16, SIZE_MAX, "aes/aesni<4" }, /* vaes-avx2 is the widest */
		{ ZEN2, "aes-128-ecb", 1, 0, NULL, 16, SIZE_MAX, "" },
		{ AVX512_ALL, "des-ede3-ctr", 1, 0, NULL, 24, SIZE_MAX, "des/gfni-avx512<88 des/table<4" },
		{ AVX512_ALL, "des-ede3-cbc", 0, FB_FLAG_CONSTANT_TIME, NULL, 24, SIZE_MAX, "des/gfni-avx512<88" },
		{ AVX512_ALL, "des-ecb", 1, 0, NULL, 8, SIZE_MAX, "des/gfni-avx512<96 des/table<4" },
		{ AVX512_ALL, "des-ede-ecb", 1, 0, NULL, 16, SIZE_MAX, "des/gfni-avx512<88 des/table<4" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "des-ecb", 1, 0, NULL, 8, SIZE_MAX, "des/gfni-avx512<72 des/table-bmi2<3" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "des-ede-ecb", 1, 0, NULL, 16, SIZE_MAX, "des/gfni-avx512<65 des/table-bmi2<3" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "des-ctr", 1, 0, NULL, 8, SIZE_MAX, "des/gfni-avx512<72 des/table-bmi2<3" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "des-ede3-cbc", 0, 0, NULL, 24, SIZE_MAX, "des/gfni-avx512<65 des/table-bmi2<3" },
		{ AVX512_ALL, "des-ede3-ecb", 1, 0, NULL, 24, 800, "" },     /* one-shot: gfni alone */
		{ AVX512_ALL, "des-ede3-ecb", 1, 0, NULL, 24, 801, "des/gfni-avx512<88 des/table<4" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "des-ede3-ecb", 1, 0, NULL, 24, 640, "" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "des-ede3-ecb", 1, 0, NULL, 24, 641, "des/gfni-avx512<65 des/table-bmi2<3" },
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "des-ecb", 0, 0, NULL, 8, 700, "des/gfni-avx512<72 des/table-bmi2<3" },
		{ AVX512_ALL, "des-ede3-ecb", 1, 0, "des/bs-avx512", 24, SIZE_MAX, "" },
		{ AVX512_ALL, "des-ede3-cfb8", 0, 0, NULL, 24, SIZE_MAX, "des/gfni-avx512<88 des/table<4" },
		{ ZEN2, "des-ecb", 1, 0, NULL, 8, SIZE_MAX, "des/table-bmi2<25" },
		{ ZEN2, "des-ede3-ecb", 0, 0, NULL, 24, SIZE_MAX, "des/table-bmi2<25" },
		{ ZEN2, "des-ede-ecb", 0, 0, NULL, 16, SIZE_MAX, "des/table-bmi2<25" },
		{ ZEN2 | FB_CPU_SLOW_BEXTR, "des-ecb", 1, 0, NULL, 8, SIZE_MAX, "des/table-bmi2<25 des/table<4" },
		{ ZEN2 | FB_CPU_SLOW_BEXTR, "des-ede3-cbc", 0, 0, NULL, 24, SIZE_MAX, "des/table-bmi2<25 des/table<4" },
		{ AVX512_ALL | FB_CPU_SLOW_BEXTR, "des-ede3-ecb", 1, 0, NULL, 24, SIZE_MAX,
		  "des/gfni-avx512<88 des/table<4" },
		{ ZEN2 & ~FB_CPU_BMI2, "des-ede3-ecb", 0, 0, NULL, 24, SIZE_MAX, "des/table<21" }, /* a mask */
		{ ZEN2 & ~FB_CPU_BMI2, "des-ecb", 1, 0, NULL, 8, SIZE_MAX, "des/table<22" },
		{ ZEN2, "des-ede3-ctr", 1, FB_FLAG_CONSTANT_TIME, NULL, 24, SIZE_MAX, "des/rotate<6" },
		{ ZEN2, "des-ecb", 0, FB_FLAG_CONSTANT_TIME, NULL, 8, SIZE_MAX, "des/rotate<6" },
		{ AVX512_ALL, "mars-128-ctr", 1, FB_FLAG_CONSTANT_TIME, NULL, 16, SIZE_MAX, "" },
		{ ZEN2, "des-ede3-cbc", 1, 0, NULL, 24, SIZE_MAX, "" },       /* a serial chain */
		{ AVX512_ALL, "rc6-128-ctr", 1, 0, NULL, 16, SIZE_MAX, "rc6/portable<3" }, /* Intel */
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "rc6-128-ctr", 1, 0, NULL, 16, SIZE_MAX, "rc6/avx2<9 rc6/portable<2" },
		{ ZEN2 | FB_CPU_AMD_ZEN, "rc6-128-cbc", 0, 0, NULL, 16, SIZE_MAX, "rc6/portable<2" },
		{ ZEN2, "rc6-256-xts", 0, FB_FLAG_CONSTANT_TIME, NULL, 32, SIZE_MAX, "rc6/portable<3" },
		{ AVX512_ALL, "mars-128-ecb", 0, 0, NULL, 16, SIZE_MAX, "mars/avx2<9 mars/portable<7" }, /* Intel */
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "mars-128-ecb", 0, 0, NULL, 16, SIZE_MAX, "mars/avx2<9 mars/portable<6" },
		{ ZEN3 | FB_CPU_AMD_ZEN, "mars-128-ctr", 1, 0, NULL, 16, SIZE_MAX, "mars/portable<6" },
		{ ZEN2, "mars-192-cfb8", 0, 0, NULL, 24, SIZE_MAX, "mars/portable<7" }, /* Intel's AVX2 class */
		{ ZEN2 | FB_CPU_AMD_ZEN | FB_CPU_SLOW_GATHER, "mars-192-cfb8", 0, 0, NULL, 24, SIZE_MAX,
		  "mars/portable<13" },
		{ ZEN2 | FB_CPU_SLOW_BEXTR | FB_CPU_SLOW_GATHER, "mars-128-ctr", 1, 0, NULL, 16, SIZE_MAX,
		  "mars/portable<7" }, /* Intel under the GDS microcode */
		{ AVX512_ALL, "serpent-128-ctr", 1, 0, NULL, 16, SIZE_MAX, "" },
		{ ZEN2 | FB_CPU_AMD_ZEN, "serpent-128-ecb", 0, 0, NULL, 16, SIZE_MAX, "serpent/avx2<256 serpent/bitslice<2" },
		{ ZEN2, "serpent-256-cbc", 0, 0, NULL, 32, SIZE_MAX, "serpent/avx2<256 serpent/bitslice<2" }, /* -km */
		{ AVX512_ALL, "twofish-256-xts", 0, 0, NULL, 32, SIZE_MAX, "twofish/table-avx512-tree<9" }, /* Intel: no BEXTR */
		{ AVX512_ALL | FB_CPU_AMD_ZEN, "twofish-128-ecb", 1, 0, NULL, 16, SIZE_MAX, "twofish/table-avx512<10" },
		{ AVX512_ALL, "twofish-128-ctr", 1, FB_FLAG_CONSTANT_TIME, NULL, 16, SIZE_MAX, "" },
		{ ZEN3 | FB_CPU_AMD_ZEN, "twofish-192-cbc", 0, 0, NULL, 24, SIZE_MAX, "" }, /* table beats the gathers */
		{ ZEN2 | FB_CPU_SLOW_GATHER | FB_CPU_AMD_ZEN, "twofish-192-ecb", 0, 0, NULL, 24, SIZE_MAX, "" }, /* table is the widest */
		{ ZEN2, "twofish-192-cbc", 0, 0, NULL, 24, SIZE_MAX, "twofish/table-avx2-tree<8" }, /* Intel: the gathers, no BEXTR */
		{ ZEN2 | FB_CPU_SLOW_BEXTR | FB_CPU_SLOW_GATHER, "twofish-192-cbc", 0, 0, NULL, 24, SIZE_MAX, "" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		const fb_cipher *c = fb_cipher_by_name(rows[i].cipher);
		fb_selection_query q = { c->family, c->mode, rows[i].enc, rows[i].hint, rows[i].flags, rows[i].cpu,
					 rows[i].forced, rows[i].key_len };
		fb_selection sel = { 0 };
		int rc = fb_select(&q, &sel);
		char got[160] = "";
		size_t at = 0;
		for (unsigned r = 0; r < sel.nrungs && at < sizeof got; r++)
			at += (size_t)snprintf(got + at, sizeof got - at, "%s%s<%u", r ? " " : "",
					       sel.rung[r].kernel->name, sel.rung[r].below);
		check(!rc && !strcmp(got, rows[i].want), "ladder", "", rows[i].cipher, rows[i].enc, rows[i].hint,
		      rows[i].flags != 0, rc ? "(refused)" : got, rows[i].want);
	}
}

/* fb_cpu_class on CPUID signatures (leaf 1 EAX: stepping, model, family,
 * extended model and family) of the classes named in the rows above. */
static void check_cpu_class(void)
{
	struct { const char *vendor; uint32_t sig; uint32_t want; const char *what; } rows[] = {
		{ "AuthenticAMD", 0x00830F10, FB_CPU_AMD_ZEN | FB_CPU_SLOW_GATHER | FB_CPU_SLOW_PDEP, "Zen 2 (17h)" },
		{ "AuthenticAMD", 0x00A00F11, FB_CPU_AMD_ZEN, "Zen 3 (19h)" },
		{ "AuthenticAMD", 0x00A10F11, FB_CPU_AMD_ZEN, "Zen 4 (19h model 11h)" },
		{ "AuthenticAMD", 0x00B40F40, FB_CPU_AMD_ZEN | FB_CPU_SLOW_VEC_CHAIN, "Zen 5 (1Ah)" },
		{ "AuthenticAMD", 0x00600F12, 0, "Bulldozer (15h)" },
		{ "HygonGenuine", 0x00900F02, 0, "Hygon (18h)" },
		{ "GenuineIntel", 0x000806F8, FB_CPU_SLOW_BEXTR, "Sapphire Rapids (6, 8Fh)" },
		{ "GenuineIntel", 0x00090672, FB_CPU_SLOW_BEXTR, "Alder Lake (6, 97h)" },
		{ "GenuineIntel", 0x000306C3, FB_CPU_SLOW_BEXTR, "Haswell (6, 3Ch)" },
		{ "GenuineIntel", 0x000506E3, FB_CPU_SLOW_BEXTR | FB_CPU_SLOW_GATHER, "Skylake (6, 5Eh)" },
		{ "GenuineIntel", 0x00050657, FB_CPU_SLOW_BEXTR | FB_CPU_SLOW_GATHER, "Cascade Lake (6, 55h)" },
		{ "GenuineIntel", 0x000906EA, FB_CPU_SLOW_BEXTR | FB_CPU_SLOW_GATHER, "Coffee Lake (6, 9Eh)" },
		{ "GenuineIntel", 0x000806EA, FB_CPU_SLOW_BEXTR | FB_CPU_SLOW_GATHER, "Whiskey Lake (6, 8Eh)" },
		{ "GenuineIntel", 0x000606A6, FB_CPU_SLOW_BEXTR | FB_CPU_SLOW_GATHER, "Ice Lake-SP (6, 6Ah)" },
		{ "GenuineIntel", 0x000806C1, FB_CPU_SLOW_BEXTR | FB_CPU_SLOW_GATHER, "Tiger Lake (6, 8Ch)" },
		{ "GenuineIntel", 0x000A0671, FB_CPU_SLOW_BEXTR | FB_CPU_SLOW_GATHER, "Rocket Lake (6, A7h)" },
		{ "GenuineIntel", 0x000A0661, FB_CPU_SLOW_BEXTR | FB_CPU_SLOW_GATHER, "Comet Lake-U (6, A6h)" },
		{ "GenuineIntel", 0x000A0660, FB_CPU_SLOW_BEXTR, "Comet Lake-U stepping 0 (not affected)" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		uint32_t got = fb_cpu_class(rows[i].vendor, rows[i].sig);
		checks++;
		if (got != rows[i].want) {
			failures++;
			fprintf(stderr, "FAIL cpu class: %s %08x (%s): got %x, want %x\n", rows[i].vendor,
				(unsigned)rows[i].sig, rows[i].what, (unsigned)got, (unsigned)rows[i].want);
		}
	}
}

static void check_forced(void)
{
	const fb_cipher *c = fb_cipher_by_name("des-ede3-cbc");
	struct { uint32_t cpu; const char *name; unsigned flags; int rc; } rows[] = {
		{ ZEN2, "des/table", 0, FB_OK },
		{ ZEN2, "DES/TABLE", 0, FB_OK },                            /* names are case-blind */
		{ ZEN2, "des/bs-avx512", 0, FB_ERR_IMPL_UNAVAILABLE },      /* not on this class */
		{ AVX512_ALL, "des/bs-avx512", 0, FB_OK },
		{ ZEN2, "aes/aesni", 0, FB_ERR_IMPL_UNAVAILABLE },          /* another family */
		{ ZEN2, "des/nonesuch", 0, FB_ERR_IMPL_UNAVAILABLE },
		{ ZEN2, "des/table", FB_FLAG_CONSTANT_TIME, FB_ERR_NOT_CONSTANT_TIME },
		{ ZEN2, "des/bs-avx2", FB_FLAG_CONSTANT_TIME, FB_OK },
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		fb_selection_query q = { c->family, c->mode, 1, SIZE_MAX, rows[i].flags, rows[i].cpu, rows[i].name,
					 fb_cipher_key_len(c) };
		fb_selection sel = { 0 };
		int rc = fb_select(&q, &sel);
		int ok = rc == rows[i].rc && (rc || (sel.par == sel.ser && !strcasecmp(sel.par->name, rows[i].name)));
		check(ok, "forced", "", rows[i].name, 1, SIZE_MAX, rows[i].flags != 0, rc ? NULL : name_of(sel.par),
		      rows[i].rc ? NULL : rows[i].name);
	}
}

/* On this CPU: contexts run what the selection says. */
static void check_runtime(void)
{
	static const uint8_t key[64] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
					 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33 };
	static const uint8_t iv[16] = { 0 };
	fb_ctx *ctx = fb_ctx_new();
	for (size_t i = 0; fb_cipher_at(i); i++) {
		const fb_cipher *c = fb_cipher_at(i);
		for (int enc = 0; enc < 2; enc++) {
			int rc = fb_init(ctx, c, enc ? FB_ENCRYPT : FB_DECRYPT, key, fb_cipher_key_len(c), iv,
					 fb_cipher_iv_len(c), NULL);
			fb_selection_query q = { c->family, c->mode, enc, SIZE_MAX, 0, fb_cpu_features(), NULL,
						 fb_cipher_key_len(c) };
			fb_selection sel = { 0 };
			int src = fb_select(&q, &sel);
			check(!rc && !src && same(fb_ctx_impl(ctx), name_of(sel.par)) &&
				      same(fb_ctx_serial_impl(ctx), name_of(sel.ser)),
			      "context on this CPU", "this CPU", c->name, enc, SIZE_MAX, 0, fb_ctx_impl(ctx),
			      name_of(sel.par));
		}
	}
	fb_ctx_free(ctx);
}

int main(void)
{
	if (getenv("FASTBLOCK_IMPL")) {
		printf("SKIP: FASTBLOCK_IMPL is set, and it overrides every choice\n");
		return 77;
	}
	for (size_t m = 0; m < sizeof machines / sizeof *machines; m++)
		check_machine(&machines[m]);
	check_named_rows();
	check_lane_choice();
	check_whole_streams();
	check_ladder();
	check_cpu_class();
	check_forced();
	check_runtime();
	printf("test_dispatch: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
