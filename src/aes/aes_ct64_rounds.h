/*
 * aes/ct64's rounds on a word type CT_W: uint64_t (four blocks, the
 * layout of aes_ct64.c's comment) or a vector of two such words (eight
 * blocks: lane 0 blocks 0-3, lane 1 blocks 4-7), the same code. Included
 * by aes_ct64.c with CT_W and CT_FN(name) (the name with the width's
 * suffix) defined. Round keys are uint64_t words, XORed into every lane.
 */

/* The AES S-box on the 64 bytes held in q (Boyar & Peralta, "A new
 * combinational logic minimization technique with applications to
 * cryptology", SEA 2010: top linear layer, shared GF(2^4) inversion,
 * bottom linear layer). x0 is the most significant bit. */
static void CT_FN(sbox)(CT_W q[8])
{
	CT_W x0 = q[7], x1 = q[6], x2 = q[5], x3 = q[4];
	CT_W x4 = q[3], x5 = q[2], x6 = q[1], x7 = q[0];
	CT_W y1, y2, y3, y4, y5, y6, y7, y8, y9, y10, y11, y12, y13, y14, y15;
	CT_W y16, y17, y18, y19, y20, y21;
	CT_W t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14;
	CT_W t15, t16, t17, t18, t19, t20, t21, t22, t23, t24, t25, t26, t27;
	CT_W t28, t29, t30, t31, t32, t33, t34, t35, t36, t37, t38, t39, t40;
	CT_W t41, t42, t43, t44, t45, t46, t47, t48, t49, t50, t51, t52, t53;
	CT_W t54, t55, t56, t57, t58, t59, t60, t61, t62, t63, t64, t65, t66, t67;
	CT_W z0, z1, z2, z3, z4, z5, z6, z7, z8, z9, z10, z11, z12, z13, z14;
	CT_W z15, z16, z17;

	/* Top linear layer: 23 XORs. */
	y14 = x3 ^ x5;
	y13 = x0 ^ x6;
	y9 = x0 ^ x3;
	y8 = x0 ^ x5;
	t0 = x1 ^ x2;
	y1 = t0 ^ x7;
	y4 = y1 ^ x3;
	y12 = y13 ^ y14;
	y2 = y1 ^ x0;
	y5 = y1 ^ x6;
	y3 = y5 ^ y8;
	t1 = x4 ^ y12;
	y15 = t1 ^ x5;
	y20 = t1 ^ x1;
	y6 = y15 ^ x7;
	y10 = y15 ^ t0;
	y11 = y20 ^ y9;
	y7 = x7 ^ y11;
	y17 = y10 ^ y11;
	y19 = y10 ^ y8;
	y16 = t0 ^ y11;
	y21 = y13 ^ y16;
	y18 = x0 ^ y16;

	/* Middle, non-linear: inversion in GF(2^8) via GF(2^4). */
	t2 = y12 & y15;
	t3 = y3 & y6;
	t4 = t3 ^ t2;
	t5 = y4 & x7;
	t6 = t5 ^ t2;
	t7 = y13 & y16;
	t8 = y5 & y1;
	t9 = t8 ^ t7;
	t10 = y2 & y7;
	t11 = t10 ^ t7;
	t12 = y9 & y11;
	t13 = y14 & y17;
	t14 = t13 ^ t12;
	t15 = y8 & y10;
	t16 = t15 ^ t12;
	t17 = t4 ^ t14;
	t18 = t6 ^ t16;
	t19 = t9 ^ t14;
	t20 = t11 ^ t16;
	t21 = t17 ^ y20;
	t22 = t18 ^ y19;
	t23 = t19 ^ y21;
	t24 = t20 ^ y18;

	t25 = t21 ^ t22;
	t26 = t21 & t23;
	t27 = t24 ^ t26;
	t28 = t25 & t27;
	t29 = t28 ^ t22;
	t30 = t23 ^ t24;
	t31 = t22 ^ t26;
	t32 = t31 & t30;
	t33 = t32 ^ t24;
	t34 = t23 ^ t33;
	t35 = t27 ^ t33;
	t36 = t24 & t35;
	t37 = t36 ^ t34;
	t38 = t27 ^ t36;
	t39 = t29 & t38;
	t40 = t25 ^ t39;

	t41 = t40 ^ t37;
	t42 = t29 ^ t33;
	t43 = t29 ^ t40;
	t44 = t33 ^ t37;
	t45 = t42 ^ t41;
	z0 = t44 & y15;
	z1 = t37 & y6;
	z2 = t33 & x7;
	z3 = t43 & y16;
	z4 = t40 & y1;
	z5 = t29 & y7;
	z6 = t42 & y11;
	z7 = t45 & y17;
	z8 = t41 & y10;
	z9 = t44 & y12;
	z10 = t37 & y3;
	z11 = t33 & y4;
	z12 = t43 & y13;
	z13 = t40 & y5;
	z14 = t29 & y2;
	z15 = t42 & y9;
	z16 = t45 & y14;
	z17 = t41 & y8;

	/* Bottom linear layer, with the affine constant 0x63 as XNORs. */
	t46 = z15 ^ z16;
	t47 = z10 ^ z11;
	t48 = z5 ^ z13;
	t49 = z9 ^ z10;
	t50 = z2 ^ z12;
	t51 = z2 ^ z5;
	t52 = z7 ^ z8;
	t53 = z0 ^ z3;
	t54 = z6 ^ z7;
	t55 = z16 ^ z17;
	t56 = z12 ^ t48;
	t57 = t50 ^ t53;
	t58 = z4 ^ t46;
	t59 = z3 ^ t54;
	t60 = t46 ^ t57;
	t61 = z14 ^ t57;
	t62 = t52 ^ t58;
	t63 = t49 ^ t58;
	t64 = z4 ^ t59;
	t65 = t61 ^ t62;
	t66 = z1 ^ t63;
	q[7] = t59 ^ t63;
	q[1] = ~(t56 ^ t62);
	q[0] = ~(t48 ^ t60);
	t67 = t64 ^ t65;
	q[4] = t53 ^ t66;
	q[3] = t51 ^ t66;
	q[2] = t47 ^ t65;
	q[6] = ~(t64 ^ q[4]);
	q[5] = ~(t55 ^ t67);
}

/* The inverse of the S-box's affine map, constant included:
 * y_i = x_(i+2) ^ x_(i+5) ^ x_(i+7) ^ (bit i of 0x05), indices mod 8. */
static void CT_FN(inv_affine)(CT_W q[8])
{
	CT_W x[8];
	for (int i = 0; i < 8; i++)
		x[i] = q[i];
	for (int i = 0; i < 8; i++)
		q[i] = x[(i + 2) & 7] ^ x[(i + 5) & 7] ^ x[(i + 7) & 7];
	q[0] = ~q[0];
	q[2] = ~q[2];
}

/* S^-1(x) = A^-1(S(A^-1(x))), where A^-1 includes its constant: S maps
 * z to A(z^-1) ^ 0x63, so A^-1 of S's output is z^-1 itself. */
static void CT_FN(inv_sbox)(CT_W q[8])
{
	CT_FN(inv_affine)(q);
	CT_FN(sbox)(q);
	CT_FN(inv_affine)(q);
}

/* Row r (bits 16r..16r+15) rotated so that new column c is old column
 * (c + r) mod 4; each column is 4 bits (one per block). */
static CT_W CT_FN(shift_rows_word)(CT_W x)
{
	return (x & 0x000000000000FFFFull)
		| ((x >> 4) & 0x000000000FFF0000ull) | ((x << 12) & 0x00000000F0000000ull)
		| ((x >> 8) & 0x000000FF00000000ull) | ((x << 8) & 0x0000FF0000000000ull)
		| ((x >> 12) & 0x000F000000000000ull) | ((x << 4) & 0xFFF0000000000000ull);
}

/* New column c is old column (c - r) mod 4. */
static CT_W CT_FN(inv_shift_rows_word)(CT_W x)
{
	return (x & 0x000000000000FFFFull)
		| ((x >> 12) & 0x00000000000F0000ull) | ((x << 4) & 0x00000000FFF00000ull)
		| ((x >> 8) & 0x000000FF00000000ull) | ((x << 8) & 0x0000FF0000000000ull)
		| ((x >> 4) & 0x0FFF000000000000ull) | ((x << 12) & 0xF000000000000000ull);
}

static void CT_FN(shift_rows)(CT_W q[8])
{
	for (int i = 0; i < 8; i++)
		q[i] = CT_FN(shift_rows_word)(q[i]);
}

static void CT_FN(inv_shift_rows)(CT_W q[8])
{
	for (int i = 0; i < 8; i++)
		q[i] = CT_FN(inv_shift_rows_word)(q[i]);
}

/* Row field r of the result holds row r+k/16 of x. */
static CT_W CT_FN(rot16)(CT_W x) { return (x >> 16) | (x << 48); }
static CT_W CT_FN(rot32)(CT_W x) { return (x >> 32) | (x << 32); }

/* Multiplication by x (xtime) of all bytes at once: a shift of the bit
 * planes, with the top plane folded back through 0x1b = bits 0, 1, 3, 4. */
static void CT_FN(xtime)(CT_W o[8], const CT_W s[8])
{
	CT_W hi = s[7];
	o[7] = s[6];
	o[6] = s[5];
	o[5] = s[4];
	o[4] = s[3] ^ hi;
	o[3] = s[2] ^ hi;
	o[2] = s[1];
	o[1] = s[0] ^ hi;
	o[0] = hi;
}

/* out_r = 2 a_r ^ 3 a_(r+1) ^ a_(r+2) ^ a_(r+3)
 *       = 2 (a_r ^ a_(r+1)) ^ a_(r+1) ^ (a_(r+2) ^ a_(r+3)). */
static void CT_FN(mix_columns)(CT_W q[8])
{
	CT_W r1[8], s[8], s2[8];
	for (int i = 0; i < 8; i++) {
		r1[i] = CT_FN(rot16)(q[i]);
		s[i] = q[i] ^ r1[i];
	}
	CT_FN(xtime)(s2, s);
	for (int i = 0; i < 8; i++)
		q[i] = s2[i] ^ r1[i] ^ CT_FN(rot32)(s[i]);
}

/* InvMixColumns = MixColumns after the circulant (5, 0, 4, 0):
 * a_r ^= 4 (a_r ^ a_(r+2)). */
static void CT_FN(inv_mix_columns)(CT_W q[8])
{
	CT_W t[8], t2[8], t4[8];
	for (int i = 0; i < 8; i++)
		t[i] = q[i] ^ CT_FN(rot32)(q[i]);
	CT_FN(xtime)(t2, t);
	CT_FN(xtime)(t4, t2);
	for (int i = 0; i < 8; i++)
		q[i] ^= t4[i];
	CT_FN(mix_columns)(q);
}

static void CT_FN(add_round_key)(CT_W q[8], const uint64_t *rk)
{
	for (int i = 0; i < 8; i++)
		q[i] ^= rk[i];
}


static void CT_FN(encrypt)(const fb_aes_ct64_ks *ks, CT_W q[8])
{
	unsigned nr = ks->rounds;
	CT_FN(add_round_key)(q, ks->rk[0]);
	for (unsigned r = 1; r < nr; r++) {
		CT_FN(sbox)(q);
		CT_FN(shift_rows)(q);
		CT_FN(mix_columns)(q);
		CT_FN(add_round_key)(q, ks->rk[r]);
	}
	CT_FN(sbox)(q);
	CT_FN(shift_rows)(q);
	CT_FN(add_round_key)(q, ks->rk[nr]);
}

static void CT_FN(decrypt)(const fb_aes_ct64_ks *ks, CT_W q[8])
{
	unsigned nr = ks->rounds;
	CT_FN(add_round_key)(q, ks->rk[nr]);
	for (unsigned r = nr - 1; r > 0; r--) {
		CT_FN(inv_shift_rows)(q);
		CT_FN(inv_sbox)(q);
		CT_FN(add_round_key)(q, ks->rk[r]);
		CT_FN(inv_mix_columns)(q);
	}
	CT_FN(inv_shift_rows)(q);
	CT_FN(inv_sbox)(q);
	CT_FN(add_round_key)(q, ks->rk[0]);
}

