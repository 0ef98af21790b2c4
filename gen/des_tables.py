#!/usr/bin/env python3
# output: src/des/des_tables.h
"""DES tables generated from the definitions in FIPS 46-3.

The permutations and S-boxes below are the standard's tables, written as
the standard prints them (1-based bit numbers, bit 1 = most significant).
Everything the C code uses is derived from them here; a reference DES in
this file checks the derivation against the FIPS 46-3 worked example
before anything is written.

Usage: python3 gen/des_tables.py OUTPATH   (writes the C header)
Importable: other generators (bitsliced circuits) use SBOX, P, E, ...
"""
import sys

IP = [58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4,
      62, 54, 46, 38, 30, 22, 14, 6, 64, 56, 48, 40, 32, 24, 16, 8,
      57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3,
      61, 53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7]
E = [32, 1, 2, 3, 4, 5, 4, 5, 6, 7, 8, 9, 8, 9, 10, 11, 12, 13,
     12, 13, 14, 15, 16, 17, 16, 17, 18, 19, 20, 21, 20, 21, 22, 23, 24, 25,
     24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1]
P = [16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10,
     2, 8, 24, 14, 32, 27, 3, 9, 19, 13, 30, 6, 22, 11, 4, 25]
SBOX = [
    [14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7,
     0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8,
     4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0,
     15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13],
    [15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10,
     3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5,
     0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15,
     13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9],
    [10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8,
     13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1,
     13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7,
     1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12],
    [7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15,
     13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9,
     10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4,
     3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14],
    [2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9,
     14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6,
     4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14,
     11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3],
    [12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11,
     10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8,
     9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6,
     4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13],
    [4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1,
     13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6,
     1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2,
     6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12],
    [13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7,
     1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2,
     7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8,
     2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11],
]
PC1 = [57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18,
       10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60, 52, 44, 36,
       63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22,
       14, 6, 61, 53, 45, 37, 29, 21, 13, 5, 28, 20, 12, 4]
PC2 = [14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10,
       23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2,
       41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48,
       44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32]
SHIFTS = [1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1]

# FIP = IP^-1, derived rather than typed.
FP = [0] * 64
for _i, _src in enumerate(IP):
    FP[_src - 1] = _i + 1


def sbox(j, v):
    """S-box j (0-based) on a 6-bit input b1..b6 (b1 = MSB): row b1b6, column b2..b5."""
    row = ((v >> 4) & 2) | (v & 1)
    return SBOX[j][row * 16 + ((v >> 1) & 15)]


def permute(bits_in, width_in, table):
    """Apply a 1-based FIPS permutation table to an integer of width_in bits."""
    out = 0
    for src in table:
        out = (out << 1) | ((bits_in >> (width_in - src)) & 1)
    return out


# ---- reference DES, straight from the standard ----------------------------

def subkeys(key):
    cd = permute(key, 64, PC1)
    c, d = cd >> 28, cd & 0xFFFFFFF
    ks = []
    for s in SHIFTS:
        c = ((c << s) | (c >> (28 - s))) & 0xFFFFFFF
        d = ((d << s) | (d >> (28 - s))) & 0xFFFFFFF
        ks.append(permute((c << 28) | d, 56, PC2))
    return ks


def feistel(r, k):
    x = permute(r, 32, E) ^ k
    s = 0
    for j in range(8):
        s = (s << 4) | sbox(j, (x >> (42 - 6 * j)) & 63)
    return permute(s, 32, P)


def des_ref(key, block, decrypt=False):
    ks = subkeys(key)
    if decrypt:
        ks = ks[::-1]
    x = permute(block, 64, IP)
    l, r = x >> 32, x & 0xFFFFFFFF
    for k in ks:
        l, r = r, l ^ feistel(r, k)
    return permute((r << 32) | l, 64, FP)


# ---- tables for src/des/des_table.c ------------------------------------------
#
# The C code keeps each 32-bit half rotated right by 3 ("R' = ror(R, 3)").
# Then S-boxes 1,3,5,7 read their 6 expanded input bits from bytes 3..0 of
# X = R' ^ KX and S-boxes 2,4,6,8 from bytes 3..0 of Y = rol(R', 4) ^ KY,
# bits 0..5 of each byte: E costs one rotation. SP[j][v] = ror(P(S_j(v)), 3)
# so the round output lands in the same rotated form.

def ror32(x, n):
    n %= 32
    return ((x >> n) | (x << (32 - n))) & 0xFFFFFFFF


def rol32(x, n):
    return ror32(x, 32 - (n % 32))


SBOX_ORDER_X = [7, 5, 3, 1]   # byte 0..3 of X holds S-box 7,5,3,1 (1-based)
SBOX_ORDER_Y = [8, 6, 4, 2]


def field_of(word, j):
    """6-bit E input of S-box j (1-based) from X or Y (already rotated)."""
    order = SBOX_ORDER_X if j % 2 else SBOX_ORDER_Y
    return (word >> (8 * order.index(j))) & 63


def sp_tables():
    tabs = []
    for j in range(8):
        row = []
        for v in range(64):
            s = sbox(j, v) << (28 - 4 * j)
            row.append(ror32(permute(s, 32, P), 3))
        tabs.append(row)
    return tabs


def expand_bytes(w):
    """E(w) with S-box j's six input bits in byte j-1 (bits 5..0)."""
    e = 0
    for j in range(1, 9):
        e |= (ror32(w, (31 - 4 * j) % 32) & 63) << (8 * (j - 1))
    return e


def sp64_tables():
    """Seed 003's expanded form: E(P(S_j(v))) as a 64-bit word, so a
    round's output is already the next round's expanded input."""
    return [[expand_bytes(permute(sbox(j, v) << (28 - 4 * j), 32, P)) for v in range(64)]
            for j in range(8)]


def key_bit_positions():
    """For each of the 48 round-key bits (PC2 output order), where it goes
    in the 64-bit word KX<<32 | KY."""
    pos = []
    for b in range(48):
        j, t = divmod(b, 6)           # S-box j (0-based), bit t (0 = MSB of the field)
        order = SBOX_ORDER_X if (j + 1) % 2 else SBOX_ORDER_Y
        bitpos = 8 * order.index(j + 1) + (5 - t)
        pos.append(bitpos + (32 if (j + 1) % 2 else 0))
    return pos


def pc1_tables():
    """pc1[i][v]: contribution of key byte i (7 bits v = byte >> 1, parity
    dropped) to CD, a 56-bit word with C in bits 55..28, D in 27..0."""
    tabs = []
    for i in range(8):
        row = []
        for v in range(128):
            key = (v << 1) << (8 * (7 - i))
            row.append(permute(key, 64, PC1))
        tabs.append(row)
    return tabs


def pc2_tables():
    """pc2[c][v]: contribution to KX<<32|KY of 7-bit chunk c of CD
    (chunk 0 = bits 55..49, ..., chunk 7 = bits 6..0)."""
    pos = key_bit_positions()
    tabs = []
    for c in range(8):
        row = []
        for v in range(128):
            cd = v << (49 - 7 * c)
            k48 = permute(cd, 56, PC2)
            word = 0
            for b in range(48):
                if (k48 >> (47 - b)) & 1:
                    word |= 1 << pos[b]
            row.append(word)
        tabs.append(row)
    return tabs


# ---- tables for src/des/des_rotate.c (constant time) ---------------------------
#
# des/rotate reads no table at a secret index. Each of the 4 output bits
# of S-box j (in des_sp's rotated, P-permuted form: bit p of the round
# output) is a 64-entry truth table T, kept as W = rol64(T, p): then
# ror64(W, v) has T[v] at bit p, and masking bit p places it. The round
# keys are des/table's (KX, KY), built bit by bit from public positions.

def rot64(x, n):
    n %= 64
    return ((x >> n) | (x << (64 - n))) & 0xFFFFFFFFFFFFFFFF


def rot_tables():
    """(W, M) per S-box: 4 rotated truth tables and their output masks."""
    sp = sp_tables()
    ws, ms = [], []
    for j in range(8):
        bits = sorted({p for v in range(64) for p in range(32) if (sp[j][v] >> p) & 1})
        assert len(bits) == 4
        ws.append([rot64(sum(((sp[j][v] >> p) & 1) << v for v in range(64)), -p) for p in bits])
        ms.append([1 << p for p in bits])
    return ws, ms


def key_bit_sources():
    """src[r][b]: which bit of the key, as a big-endian 64-bit word (bit
    63 = the top bit of byte 0), is bit b (PC-2 order) of round key r."""
    src = []
    c = [PC1[i] for i in range(28)]      # key bit numbers (1-based, FIPS) in C
    d = [PC1[i] for i in range(28, 56)]
    for s in SHIFTS:
        c, d = c[s:] + c[:s], d[s:] + d[:s]
        cd = c + d
        src.append([64 - cd[PC2[b] - 1] for b in range(48)])
    return src


def model_rot_encrypt(key, block):
    """des/rotate's round and key schedule, modelled."""
    ws, ms = rot_tables()
    src, dst = key_bit_sources(), key_bit_positions()
    rks = []
    for r in range(16):
        k = 0
        for b in range(48):
            k |= ((key >> src[r][b]) & 1) << dst[b]
        rks.append((k >> 32, k & 0xFFFFFFFF))
    x = permute(block, 64, IP)
    l, r = ror32(x >> 32, 3), ror32(x & 0xFFFFFFFF, 3)
    for kx, ky in rks:
        xx, yy = r ^ kx, rol32(r, 4) ^ ky
        f = 0
        for j in range(1, 9):
            v = field_of(xx if j % 2 else yy, j)
            for w, m in zip(ws[j - 1], ms[j - 1]):
                f |= rot64(w, v) & m
        l, r = r, l ^ f
    return permute((rol32(r, 3) << 32) | rol32(l, 3), 64, FP)


def model_encrypt(key, block):
    """The C code's algorithm, modelled with the generated tables, must
    equal the reference DES: checks every derivation above."""
    sp, p1, p2 = sp_tables(), pc1_tables(), pc2_tables()
    cd = 0
    for i in range(8):
        cd |= p1[i][((key >> (8 * (7 - i))) & 0xFF) >> 1]
    c, d = cd >> 28, cd & 0xFFFFFFF
    rks = []
    for s in SHIFTS:
        c = ((c << s) | (c >> (28 - s))) & 0xFFFFFFF
        d = ((d << s) | (d >> (28 - s))) & 0xFFFFFFF
        w = (c << 28) | d
        k = 0
        for ch in range(8):
            k |= p2[ch][(w >> (49 - 7 * ch)) & 127]
        rks.append((k >> 32, k & 0xFFFFFFFF))
    x = permute(block, 64, IP)
    l, r = ror32(x >> 32, 3), ror32(x & 0xFFFFFFFF, 3)
    for kx, ky in rks:
        xx, yy = r ^ kx, rol32(r, 4) ^ ky
        f = 0
        for j in range(1, 9):
            f ^= sp[j - 1][field_of(xx if j % 2 else yy, j)]
        l, r = r, l ^ f
    return permute((rol32(r, 3) << 32) | rol32(l, 3), 64, FP)


# IP as five masked bit-block swaps (Hoey's observation; seed 000): each
# entry (first, second, shift, mask) swaps the bits of `second` selected by
# mask with the bits of `first` selected by mask << shift. FP runs the same
# swaps in reverse order. self_check() proves the network equals IP.
IP_SWAPS = [("l", "r", 4, 0x0F0F0F0F), ("l", "r", 16, 0x0000FFFF),
            ("r", "l", 2, 0x33333333), ("r", "l", 8, 0x00FF00FF),
            ("l", "r", 1, 0x55555555)]


def swap_network(x, swaps):
    w = {"l": x >> 32, "r": x & 0xFFFFFFFF}
    for a, b, n, m in swaps:
        t = ((w[a] >> n) ^ w[b]) & m
        w[b] ^= t
        w[a] ^= (t << n) & 0xFFFFFFFF
    return (w["l"] << 32) | w["r"]


def model64_encrypt(key, block):
    sp = sp64_tables()
    ks = subkeys(key)
    x = permute(block, 64, IP)
    l, r = expand_bytes(x >> 32), expand_bytes(x & 0xFFFFFFFF)
    for k in ks:
        kb = 0
        for j in range(8):
            kb |= ((k >> (42 - 6 * j)) & 63) << (8 * j)
        t = r ^ kb
        f = 0
        for j in range(8):
            f ^= sp[j][(t >> (8 * j)) & 0xFF]
        l, r = r, l ^ f

    def compress(e):
        return sum(((e >> (8 * (j - 1) + 1)) & 15) << (32 - 4 * j) for j in range(1, 9))
    return permute((compress(r) << 32) | compress(l), 64, FP)


def self_check():
    # FIPS 46-3 style worked example (also in countless textbooks).
    assert des_ref(0x133457799BBCDFF1, 0x0123456789ABCDEF) == 0x85E813540F0AB405
    assert des_ref(0x133457799BBCDFF1, 0x85E813540F0AB405, True) == 0x0123456789ABCDEF
    import random
    rnd = random.Random(46)
    for _ in range(256):
        x = rnd.getrandbits(64)
        assert swap_network(x, IP_SWAPS) == permute(x, 64, IP)
        assert swap_network(x, IP_SWAPS[::-1]) == permute(x, 64, FP)
    for _ in range(64):
        k, b = rnd.getrandbits(64), rnd.getrandbits(64)
        assert model_encrypt(k, b) == des_ref(k, b)
        assert model64_encrypt(k, b) == des_ref(k, b)
        assert model_rot_encrypt(k, b) == des_ref(k, b)


def c_array(name, ctype, rows, fmt):
    out = [f"static const {ctype} {name}[{len(rows)}][{len(rows[0])}] = {{"]
    for row in rows:
        out.append("\t{")
        for i in range(0, len(row), 4):
            out.append("\t\t" + ", ".join(fmt.format(v) for v in row[i:i + 4]) + ",")
        out.append("\t},")
    out.append("};")
    return "\n".join(out)


def render():
    hdr = [
        "/* Generated by gen/des_tables.py from FIPS 46-3; do not edit. */",
        "#ifndef FB_DES_TABLES_H",
        "#define FB_DES_TABLES_H",
        "#include <stdint.h>",
        "",
        "/* S-box j combined with P, output rotated right by 3; index = 6-bit E input. */",
        c_array("des_sp", "uint32_t", sp_tables(), "0x{:08x}u"),
        "",
        "/* Expanded form (seed 003): E(P(S_j(v))), S-box k's E bits in byte k-1. */",
        c_array("des_sp64", "uint64_t", sp64_tables(), "0x{:016x}ull"),
        "",
        "/* PC-1: key byte i (parity bit dropped, v = byte >> 1) -> C<<28 | D. */",
        c_array("des_pc1", "uint64_t", pc1_tables(), "0x{:014x}ull"),
        "",
        "/* PC-2: 7-bit chunk c of C<<28|D (c = 0 most significant) -> KX<<32 | KY. */",
        c_array("des_pc2", "uint64_t", pc2_tables(), "0x{:016x}ull"),
        "",
        "/* IP and FP as masked swaps of the halves l, r (t is scratch). */",
        "#define DES_SWAP(a, b, n, m) (t = (((a) >> (n)) ^ (b)) & (m), (b) ^= t, (a) ^= t << (n))",
        "#define DES_IP(l, r) (" + ", ".join(f"DES_SWAP({a}, {b}, {n}, 0x{m:08x}u)" for a, b, n, m in IP_SWAPS) + ")",
        "#define DES_FP(l, r) (" + ", ".join(f"DES_SWAP({a}, {b}, {n}, 0x{m:08x}u)" for a, b, n, m in IP_SWAPS[::-1]) + ")",
        "",
        "static const uint8_t des_shifts[16] = {" + ", ".join(map(str, SHIFTS)) + "};",
        "",
        "/* des/rotate: S-box j's 4 output bits as truth tables rotated left by",
        "   their bit p in des_sp's form; ror64(W, v) & M is that bit of des_sp[j][v]. */",
        c_array("des_rot_w", "uint64_t", rot_tables()[0], "0x{:016x}ull"),
        c_array("des_rot_m", "uint32_t", rot_tables()[1], "0x{:08x}u"),
        "",
        "/* des/rotate's key schedule: bit b (PC-2 order) of round key r is bit",
        "   des_ks_src[r][b] of the key as a big-endian 64-bit word, and goes to",
        "   bit des_ks_dst[b] of KX<<32 | KY. */",
        c_array("des_ks_src", "uint8_t", key_bit_sources(), "{}"),
        "static const uint8_t des_ks_dst[48] = {" + ", ".join(map(str, key_bit_positions())) + "};",
        "",
        "#endif",
        "",
    ]
    return "\n".join(hdr)


if __name__ == "__main__":
    self_check()
    text = render()
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
