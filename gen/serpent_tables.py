#!/usr/bin/env python3
# output: src/serpent/serpent_tables.h
"""Serpent constants and S-box circuits for the bitsliced kernels.

Usage: python3 gen/serpent_tables.py OUTPATH

From the Serpent specification (Anderson, Biham, Knudsen, AES submission,
"Serpent: A Proposal for the Advanced Encryption Standard", section 2 and
appendix): the eight 4-bit S-boxes S0..S7 and the key-schedule constant
phi = fractional part of the golden ratio, (sqrt(5) - 1) / 2, times 2^32.
The inverse S-boxes are computed here.

The kernels evaluate each S-box as a Boolean circuit on 32-bit (or SIMD)
words, "bitsliced as designed": bit j of the four state words x0..x3 forms
the nibble x0 + 2 x1 + 4 x2 + 8 x3 that goes through the S-box, and the
output nibble is spread the same way (y0 = least significant bit).

Three families of circuits, found by gen/serpent_sbox_search.c (a search
tool written for this project) and pasted below as data:
  T3 - fewest three-input gates, one vpternlogd each (7 or 8 per S-box),
       for throughput;
  D2 - three-input gates at depth two (8 to 10 per S-box), for latency;
  L2 - fewest two-input gates, one and/or/xor/andnot each (for AVX2 and
       scalar C);
  L2D - two-input gates from the D2 circuits, each three-input gate expanded
       for the least depth (4 to 5), for latency-bound code: scalar
       single-block encryption (S0..S7) and serpent/avx2's lone group of
       up to 8 blocks (both directions).
A circuit is a list of gates "a,b[,c]:tt": the gate reads signals a, b, c
(0..3 are x0..x3, gate k of the list is signal 4 + k) and computes the
16-bit truth table tt over the 16 input nibbles (bit v = value at input
nibble v), up to complement: the search ignores polarity, which is free.
This script checks every circuit against the S-box table, then chooses the
exact instruction for each gate:
  T3: the ternlog immediate (complements absorbed, outputs exact);
  L2: and/or/xor/andnot with the inputs' actual polarity; an output may come
      out complemented, which the key schedule undoes by folding the
      complement into the next round key (the *_FLIP masks below).
The emitted C is re-simulated on truth tables before the file is written.
"""

import math
import sys

# ---- From the specification -------------------------------------------------

SBOX = [
    [3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12],
    [15, 12, 2, 7, 9, 0, 5, 10, 1, 11, 14, 8, 6, 13, 3, 4],
    [8, 6, 7, 9, 3, 12, 10, 15, 13, 1, 14, 4, 0, 11, 5, 2],
    [0, 15, 11, 8, 12, 9, 6, 3, 13, 1, 2, 4, 10, 7, 5, 14],
    [1, 15, 8, 3, 12, 0, 11, 6, 2, 5, 4, 10, 9, 14, 7, 13],
    [15, 5, 2, 11, 4, 10, 9, 12, 0, 3, 14, 8, 13, 6, 7, 1],
    [7, 2, 12, 5, 8, 4, 6, 11, 14, 9, 1, 15, 13, 3, 10, 0],
    [1, 13, 15, 0, 14, 8, 2, 11, 7, 4, 12, 10, 9, 3, 5, 6],
]


def phi32():
    """floor(frac(golden ratio) * 2^32), with exact integer arithmetic."""
    # (sqrt(5) - 1) / 2 * 2^32 = (isqrt(5 * 2^64) - 2^32) / 2
    return (math.isqrt(5 << 64) - (1 << 32)) // 2


# ---- Circuits (output of gen/serpent_sbox_search.c) -------------------------
# S0..S7 are the S-boxes, SI0..SI7 their inverses.  Each entry names the
# arguments that reproduce it (SBOX numbers 8..15 are SI0..SI7):
#   cc -O2 -o /tmp/ss gen/serpent_sbox_search.c && /tmp/ss ARGUMENTS
# (for L2 the "# L2" part of the output).  Where the depth-two circuit has
# no more gates than the best unconstrained one, T3 uses it too.

T3 = {
    # 7 gates: t3 0 6000 11
    'S0': '0,1,3:3366 0,2,4:c396 4,3,0:66cc 0,1,3:88ee 5,6,7:ad32 5,6,7:e64a 4,8,9:9764',
    # 7 gates: t3 1 30000 23
    'S1': '0,1,2:b4b4 0,3,4:4bb4 0,1,3:ccaa 0,1,5:2dd2 4,6,7:a972 4,6,7:9ca6 4,6,7:d16c',
    # 7 gates: t3 2 6000 11
    'S2': '0,2,3:5fa0 1,2,4:639c 0,1,4:7546 1,5,6:da16 0,1,3:3366 4,7,8:4da6 4,7,8:a4d6',
    # 8 gates: d2 3 20000 5
    'S3': '0,2,3:0fa0 1,2,3:cc0c 0,1,3:bb66 0,1,2:5252 0,4,5:63a6 0,6,4:b4c6 3,7,6:e952 1,7,4:913e',
    # 8 gates: d2 4 20000 5
    'S4': '0,1,3:2244 0,2,3:0a5a 1,2,3:c330 0,1,3:44aa 2,3,4:2db4 0,5,6:69ca 1,4,5:e692 1,2,7:b856',
    # 8 gates: d2 5 20000 5
    'S5': '0,1,3:77ee 0,1,3:6688 0,2,3:af5a 0,1,2:7c7c 0,2,4:2db4 3,5,6:99d2 3,7,4:8b6c 1,7,6:e316',
    # 7 gates: t3 6 6000 11
    'S6': '0,2,3:5af0 0,1,4:963c 5,3,0:be82 0,3,5:7d14 4,6,7:c176 4,6,7:5b94 4,6,7:e692',
    # 8 gates: t3 7 6000 11
    'S7': '0,1,2:1c1c 0,3,4:1cb6 0,1,3:5522 2,5,6:a9d4 2,3,7:06f0 0,1,8:8e78 0,6,9:df0a 4,8,10:c716',
    # 7 gates: t3 8 6000 11
    'SI0': '0,1,2:1e1e 0,3,4:e11e 5,0,1:8778 0,1,3:ccaa 4,6,7:9a36 4,6,7:8d6a 4,6,7:c6b8',
    # 7 gates: t3 9 6000 11
    'SI1': '0,1,3:99aa 0,2,4:695a 1,3,4:ee88 0,1,3:aa66 5,6,7:c26e 5,6,7:45bc 4,8,9:d986',
    # 7 gates: t3 10 6000 11
    'SI2': '1,2,3:c00c 0,2,4:9a56 3,1,2:ccf0 1,2,3:0fcc 5,6,7:c6b4 0,7,8:63d2 5,7,9:97c8',
    # 8 gates: t3 11 6000 11
    'SI3': '1,2,3:c330 0,3,4:c39a 0,2,3:55fa 1,5,6:56e8 0,1,6:5576 2,4,8:64b6 2,3,9:9fb6 4,6,10:497c',
    # 8 gates: d2 12 20000 5
    'SI4': '0,1,3:6644 0,2,3:f55a 0,2,3:0ffa 0,1,2:7a7a 1,4,5:1b96 0,1,6:2dd8 3,7,4:853e 2,3,4:66b4',
    # 8 gates: d2 13 20000 5
    'SI5': '0,1,3:ddaa 0,1,2:9e9e 0,1,3:5588 0,2,3:fa5a 1,2,4:1d6a 2,5,6:5b86 1,4,7:36d2 0,3,5:9e34',
    # 7 gates: t3 14 6000 11
    'SI6': '0,2,3:af50 0,1,4:639c 0,2,3:a0fa 0,2,3:55f0 1,6,7:75c2 1,6,7:19f4 4,8,9:d2a6',
    # 8 gates: d2 15 20000 5
    'SI7': '0,1,3:ee66 1,2,3:cc30 0,2,3:a50a 0,1,2:f8f8 2,4,5:d2a6 0,6,5:639a 3,4,6:4b6c 3,7,4:16f8',
}
D2 = {
    # 9 gates: d2 0 20000 5
    'S0': '0,1,3:dd22 0,1,3:88ee 0,1,3:ee44 0,1,2:6464 1,2,3:f300 2,4,5:ad32 2,6,5:e64a 2,7,8:9764 2,6,4:c396',
    # 9 gates: d2 1 20000 5
    'S1': '0,1,2:7a7a 0,1,3:9922 0,1,3:ccaa 0,1,2:b4b4 0,1,3:11cc 1,4,5:9ca6 2,6,5:a972 2,3,7:4bb4 2,8,6:d16c',
    # 9 gates: d2 2 20000 5
    'S2': '1,2,3:c33c 0,2,3:fa50 0,2,3:5a0a 0,1,2:b6b6 0,1,3:2266 0,2,4:639c 1,5,6:a4d6 3,7,5:4da6 2,8,5:da16',
    # 8 gates: d2 3 20000 5
    'S3': '0,2,3:0fa0 1,2,3:cc0c 0,1,3:bb66 0,1,2:5252 0,4,5:63a6 0,6,4:b4c6 3,7,6:e952 1,7,4:913e',
    # 8 gates: d2 4 20000 5
    'S4': '0,1,3:2244 0,2,3:0a5a 1,2,3:c330 0,1,3:44aa 2,3,4:2db4 0,5,6:69ca 1,4,5:e692 1,2,7:b856',
    # 8 gates: d2 5 20000 5
    'S5': '0,1,3:77ee 0,1,3:6688 0,2,3:af5a 0,1,2:7c7c 0,2,4:2db4 3,5,6:99d2 3,7,4:8b6c 1,7,6:e316',
    # 9 gates: d2 6 20000 5
    'S6': '0,1,2:3636 0,2,3:f550 0,2,3:a55a 1,2,3:cc3c 0,2,3:5f50 3,4,5:c176 3,6,7:963c 0,5,7:e692 1,6,8:5b94',
    # 10 gates: d2 7 20000 5
    'S7': '0,2,3:0af0 0,2,3:a5aa 0,1,3:5522 0,1,3:9944 0,1,2:1616 0,1,2:3838 1,4,5:8e78 2,6,7:a9d4 3,8,9:c716 0,8,4:1cb6',
    # 9 gates: d2 8 20000 5
    'SI0': '0,1,3:55cc 0,1,3:6688 0,1,2:9e9e 0,1,3:8866 0,1,3:11ee 2,4,5:c6b8 1,6,7:9a36 2,8,7:e11e 2,4,7:8d6a',
    # 9 gates: d2 9 20000 5
    'SI1': '0,1,3:ee88 0,1,3:cc66 0,1,3:55cc 1,2,3:f30c 1,2,3:c030 2,4,5:c26e 2,4,6:45bc 0,7,8:d986 2,5,6:695a',
    # 8 gates: d2 10 20000 5
    'SI2': '0,1,2:9292 0,1,3:6688 0,1,3:6644 0,2,3:aff0 1,4,5:9a56 2,6,7:c6b4 0,5,7:63d2 0,4,7:97c8',
    # 10 gates: d2 11 20000 5
    'SI3': '1,2,3:c330 0,1,2:8686 1,2,3:033c 0,2,3:55f0 0,2,3:0aa0 0,2,3:a0fa 0,3,4:c39a 1,5,6:497c 0,7,6:56e8 1,8,9:64b6',
    # 8 gates: d2 12 20000 5
    'SI4': '0,1,3:6644 0,2,3:f55a 0,2,3:0ffa 0,1,2:7a7a 1,4,5:1b96 0,1,6:2dd8 3,7,4:853e 2,3,4:66b4',
    # 8 gates: d2 13 20000 5
    'SI5': '0,1,3:ddaa 0,1,2:9e9e 0,1,3:5588 0,2,3:fa5a 1,2,4:1d6a 2,5,6:5b86 1,4,7:36d2 0,3,5:9e34',
    # 8 gates: d2 14 20000 5
    'SI6': '0,2,3:f50a 0,2,3:55f0 0,1,2:9696 0,2,3:0f5a 1,4,5:75c2 1,6,4:639c 1,7,5:d2a6 1,4,5:19f4',
    # 8 gates: d2 15 20000 5
    'SI7': '0,1,3:ee66 1,2,3:cc30 0,2,3:a50a 0,1,2:f8f8 2,4,5:d2a6 0,6,5:639a 3,4,6:4b6c 3,7,4:16f8',
}
# S1-S6: of the seeds 1-30 at 4,000 restarts, the circuit with the fewest
# gates, then the fewest values live at once in its best gate order (three
# groups of serpent/avx2 leave four of the sixteen ymm registers to the
# circuit), then the least depth; S1, S2 and S4-S6 have the gate counts of
# the circuits before them and 6-7 values live instead of 7-8, S3 one gate
# fewer.
L2 = {
    # 14 gates: l2 0 6000 11
    'S0': '1,2:3c3c 0,3:ffaa 4,5:c396 3,0:aa00 1,7:66cc 2,8:9030 3,9:6f30 6,10:8086 8,11:e64a 6,12:c202 10,13:ad32 12,14:a402 2,6:3366 15,16:9764',
    # 15 gates: l2 1 4000 6
    'S1': '2,3:0ff0 0,1:4444 4,5:4bb4 1,3:cc00 3,0:00aa 7,8:ccaa 1,3:00cc 0,10:aa66 6,9:0314 11,12:a972 3,6:b4b4 9,14:781e 13,15:d16c 13,15:500c 9,17:9ca6',
    # 15 gates: l2 2 4000 19
    'S2': '0,2:5050 1,3:33cc 4,5:639c 1,6:408c 0,7:ea26 1,2:3030 8,9:da16 0,6:4114 3,11:be00 2,8:1ad6 12,13:a4d6 1,2:0c0c 12,15:b20c 0,3:ffaa 16,17:4da6',
    # 15 gates: l2 3 4000 5
    'S3': '0,1:8888 0,3:ffaa 4,5:7722 0,1:eeee 3,7:11ee 2,6:80d0 8,9:913e 10,5:6e80 2,6:87d2 11,12:e952 6,10:f73e 0,14:5d94 13,15:1484 6,16:63a6 13,15:b4c6',
    # 15 gates: l2 4 4000 20
    'S4': '0,1:6666 0,3:55aa 4,5:2244 2,3:0ff0 6,7:2db4 1,8:edfc 5,9:b856 0,8:820a 1,11:4ec6 5,10:a854 12,13:e692 0,8:871e 14,15:618c 10,12:0846 16,17:69ca',
    # 15 gates: l2 5 4000 22
    'S5': '0,1:6666 0,3:55aa 4,5:1188 1,2:3c3c 6,7:2db4 3,8:ffb4 4,9:99d2 1,8:edfc 3,11:12fc 4,10:9990 12,13:8b6c 1,8:e178 14,15:6a14 10,12:8902 16,17:e316',
    # 15 gates: l2 6 4000 25
    'S6': '0,3:aa00 1,2:3c3c 4,5:963c 1,0:2222 1,3:00cc 6,8:96fc 0,9:3c56 7,10:3e76 3,11:c176 1,10:f09a 6,12:1608 13,14:e692 1,6:5af0 12,13:0164 16,17:5b94',
    # 18 gates: l2 7 6000 11
    'S7': '0,1:2222 1,2:3c3c 4,5:1c1c 0,3:00aa 6,7:1cb6 0,1:8888 0,3:55aa 9,10:5522 2,8:fcf6 11,12:a9d4 2,3:0ff0 2,13:0904 14,15:06f0 16,9:8e78 0,2:5050 17,18:8e28 6,11:493e 19,20:c716',
    # 15 gates: l2 8 6000 11
    'SI0': '2,3:0ff0 0,1:eeee 4,5:e11e 1,2:c0c0 0,7:6a6a 3,8:9500 6,9:601e 1,8:a6a6 10,11:c6b8 6,12:e7be 3,13:e700 8,14:8d6a 12,15:8428 3,6:1e1e 16,17:9a36',
    # 15 gates: l2 9 6000 11
    'SI1': '0,2:5a5a 1,3:3300 4,5:695a 6,1:2112 2,6:6050 2,3:0ff0 7,9:2ee2 8,10:0ea2 1,11:c26e 2,12:020e 6,13:6b5e 10,14:45bc 12,15:402c 2,6:99aa 16,17:d986',
    # 15 gates: l2 10 6000 11
    'SI2': '2,3:0ff0 1,4:cffc 0,3:55aa 5,6:9a56 3,2:f000 3,1:ffcc 8,9:0fcc 1,3:3300 2,11:c3f0 0,10:0544 12,13:c6b4 0,10:a022 12,15:63d2 7,16:9804 10,17:97c8',
    # 18 gates: l2 11 6000 11
    'SI3': '1,2:3c3c 1,3:00cc 4,5:3c30 0,3:ffaa 6,7:c39a 0,2:5050 0,3:55aa 9,10:55fa 1,8:0312 11,12:56e8 1,13:deec 4,14:1c2c 0,11:5550 15,16:497c 0,1:4444 3,18:bb00 8,15:dfb6 19,20:64b6',
    # 16 gates: l2 12 6000 11
    'SI4': '0,2:0a0a 2,3:0ff0 4,5:0ffa 0,1:2222 6,7:2dd8 0,1:4444 2,9:b4b4 3,8:d200 10,11:66b4 3,12:99b4 0,8:8222 13,14:1b96 12,15:0294 10,16:b620 0,13:331e 17,18:853e',
    # 16 gates: l2 13 6000 11
    'SI5': '0,1:8888 1,2:3c3c 4,5:3434 0,3:aa00 6,7:9e34 1,8:1230 2,9:e2c0 0,3:ffaa 10,11:1d6a 1,12:d1a6 0,8:8a20 13,14:5b86 12,15:4284 0,16:e82e 1,8:defc 17,18:36d2',
    # 14 gates: l2 14 6000 11
    'SI6': '1,3:33cc 0,2:5050 4,5:639c 2,0:0a0a 3,7:f50a 6,8:6108 2,9:91f8 1,10:80c8 8,11:75c2 1,12:880c 10,13:19f4 12,14:7df6 1,6:af50 15,16:d2a6',
    # 16 gates: l2 15 6000 11
    'SI7': '0,3:aa00 3,2:fff0 4,5:55f0 1,6:ddfc 2,7:2d0c 0,3:ffaa 8,9:d2a6 3,10:ffa6 1,11:336a 2,6:50f0 12,13:639a 6,10:d7f6 3,15:28f6 14,16:4308 6,17:16f8 14,16:4b6c',
}
L2D = {
    # 21 gates: d2 0 20000 5
    'S0': '0,1:2222 3,4:dd22 0,1:8888 0,1:eeee 3,6:7700 7,8:88ee 0,1:4444 0,3:aa00 10,11:ee44 0,1:6666 0,2:0a0a 13,14:6464 1,2:0c0c 3,16:f300 2,9:7010 5,18:ad32 2,9:080e 12,20:e64a 15,17:9764 2,12:1eb4 5,23:c396',
    # 20 gates: d2 1 20000 5
    'S1': '0,1:2222 0,2:5a5a 4,5:7a7a 0,1:4444 3,4:dd22 7,8:9922 0,3:00aa 1,3:cc00 10,11:ccaa 2,7:b4b4 1,3:33cc 4,14:11cc 1,6:8484 6,9:1822 16,17:9ca6 2,12:3050 9,19:a972 3,13:4bb4 2,12:c0a0 15,22:d16c',
    # 25 gates: d2 2 20000 5
    'S2': '1,2:3c3c 3,4:c33c 0,2:5050 0,3:aa00 6,7:fa50 0,2:5a5a 0,3:ffaa 9,10:5a0a 0,1:2222 0,1:4444 2,12:f2f2 13,14:b6b6 0,1:6666 0,3:5500 16,17:2266 0,2:a0a0 5,19:639c 1,8:fedc 11,21:a4d6 3,15:4900 15,8:04a6 23,24:4da6 2,18:2060 18,8:fa76 26,27:da16',
    # 19 gates: d2 3 20000 5
    'S3': '0,2:5050 2,3:0ff0 4,5:0fa0 2,3:00f0 1,7:cc0c 0,1:2222 0,1:4444 3,9:ff22 10,11:bb66 0,1:8888 0,2:5a5a 13,14:5252 0,6:afaa 8,16:63a6 12,6:b4c6 3,12:bb00 15,19:e952 1,15:9e9e 6,21:913e',
    # 20 gates: d2 4 20000 5
    'S4': '0,1:6666 0,3:55aa 4,5:2244 0,2:5a5a 0,3:5500 7,8:0a5a 1,2:0c0c 1,2:3030 3,10:f300 11,12:c330 0,1:eeee 14,5:44aa 2,3:0ff0 6,16:2db4 0,9:aafa 13,18:69ca 6,9:2a5e 1,20:e692 1,2:fcfc 15,22:b856',
    # 22 gates: d2 5 20000 5
    'S5': '0,1:6666 0,3:55aa 4,5:77ee 0,1:8888 0,1:eeee 3,7:7788 8,9:6688 0,2:0a0a 0,2:5050 3,11:ff0a 12,13:af5a 0,1:4444 1,2:3c3c 15,16:7c7c 0,2:5a5a 6,18:2db4 3,14:ff5a 10,20:99d2 17,6:746c 3,22:8b6c 1,17:4c4c 14,24:e316',
    # 24 gates: d2 6 20000 5
    'S6': '0,2:fafa 1,4:3636 0,2:0a0a 0,2:5050 3,6:f500 7,8:f550 0,2:5a5a 3,10:a55a 2,3:00f0 1,12:cc3c 0,2:a0a0 2,3:fff0 14,15:5f50 3,5:3600 5,9:f776 17,18:c176 3,11:5a00 13,20:963c 0,13:2282 9,13:c410 22,23:e692 1,11:8448 1,16:dfdc 25,26:5b94',
    # 27 gates: d2 7 20000 5
    'S7': '0,2:fafa 2,3:0ff0 4,5:0af0 2,3:0f00 0,7:a5aa 0,1:8888 0,3:55aa 9,10:5522 0,1:2222 0,1:4444 3,12:dd00 13,14:9944 0,1:eeee 2,9:f8f8 16,17:1616 1,2:3c3c 13,19:3838 1,8:8488 6,21:8e78 2,11:5020 2,15:f9f4 23,24:a9d4 3,18:0016 3,20:c700 26,27:c716 0,6:0aa0 18,29:1cb6',
    # 19 gates: d2 8 20000 23
    'SI0': '0,3:aa00 1,3:ffcc 4,5:55cc 0,1:8888 0,1:eeee 3,7:7788 8,9:6688 0,2:5a5a 7,11:5252 8,9:8866 3,8:11ee 2,6:a030 10,15:c6b8 1,12:4040 12,13:da76 17,18:9a36 2,14:e11e 2,6:050c 13,21:8d6a',
    # 21 gates: d2 9 20000 11
    'SI1': '0,1:8888 0,1:eeee 3,4:ff88 5,6:ee88 0,3:00aa 1,8:cc66 0,3:aa00 1,3:ffcc 10,11:55cc 1,2:0c0c 3,13:f30c 1,3:33cc 2,15:c030 2,7:0e08 9,17:c26e 2,7:1070 12,19:45bc 0,16:2a8a 14,21:d986 2,9:3c96 12,23:695a',
    # 22 gates: d2 10 20000 1
    'SI2': '0,1:2222 0,1:4444 2,4:d2d2 5,6:9292 0,1:8888 0,1:eeee 3,8:7788 9,10:6688 0,1:6666 0,3:00aa 12,13:6644 0,2:a0a0 2,3:0ff0 15,16:aff0 1,7:1212 1,11:8844 18,19:9a56 2,17:a0f0 14,21:c6b4 0,17:055a 11,23:63d2 7,23:97c8',
    # 24 gates: d2 11 20000 12
    'SI3': '0,3:ffaa 2,4:0f5a 1,2:c0c0 2,3:0f00 6,7:cfc0 1,2:3c3c 1,3:3300 9,10:0c3c 0,2:5050 0,3:55aa 12,13:55fa 0,1:2222 2,15:d2d2 0,1:6666 0,2:0a0a 17,18:6464 1,8:ccc0 5,20:c39a 0,8:4540 11,22:497c 1,5:0312 14,24:56e8 3,16:00d2 19,26:64b6',
    # 19 gates: d2 12 20000 13
    'SI4': '0,1:6666 0,3:00aa 4,5:6644 0,2:0a0a 0,2:5050 3,7:f50a 8,9:f55a 2,3:0ff0 7,11:0ffa 0,1:2222 0,2:5a5a 13,14:7a7a 1,6:eecc 10,16:1b96 12,13:2dd8 3,6:ff44 15,19:853e 2,3:00f0 6,21:66b4',
    # 18 gates: d2 13 20000 1
    'SI5': '0,1:8888 0,3:55aa 4,5:ddaa 0,1:eeee 2,4:7878 7,8:8686 0,2:5a5a 0,3:aa00 10,11:fa5a 1,2:3c3c 4,13:3434 1,2:c0c0 6,15:1d6a 3,6:dd00 9,17:5b86 1,6:cc88 12,19:36d2 14,11:9e34',
    # 17 gates: d2 14 20000 10
    'SI6': '0,2:0a0a 3,4:f50a 0,3:aa00 2,3:fff0 6,7:55f0 0,2:5050 3,9:af50 0,3:ffaa 2,11:0f5a 1,5:3102 1,8:44c0 13,14:75c2 1,10:639c 1,8:ddfc 12,17:d2a6 1,5:c408 19,17:19f4',
    # 19 gates: d2 15 20000 26
    'SI7': '0,1:6666 0,3:aa00 4,5:ee66 1,2:fcfc 1,3:33cc 7,8:cc30 0,2:5050 2,3:0ff0 10,11:0fa0 0,1:8888 2,13:f8f8 2,6:1e96 9,15:d2a6 0,12:afaa 9,17:639a 0,6:44cc 12,19:4b6c 3,6:ee00 14,21:16f8',
}

# ---- Checking and emitting --------------------------------------------------

MASK = 0xFFFF
X = [sum(1 << v for v in range(16) if v >> i & 1) for i in range(4)]


def table(name):
    i = int(name[-1])
    if name.startswith('SI'):
        inv = [0] * 16
        for v in range(16):
            inv[SBOX[i][v]] = v
        return inv
    return SBOX[i]


def targets(name):
    box = table(name)
    return [sum(1 << v for v in range(16) if box[v] >> j & 1) for j in range(4)]


def parse(text):
    gates = []
    for g in text.split():
        ins, tt = g.split(':')
        gates.append(([int(a) for a in ins.split(',')], int(tt, 16)))
    return gates


def classes(tabs):
    """Partition of the 16 points by the values of the given tables."""
    cls = {}
    for v in range(16):
        key = sum((t >> v & 1) << i for i, t in enumerate(tabs))
        cls.setdefault(key, []).append(v)
    return cls


def is_function_of(t, tabs):
    return all(len({t >> v & 1 for v in pts}) == 1 for pts in classes(tabs).values())


def locate_outputs(name, sig):
    """Signal index of each output (up to complement)."""
    out = []
    for j, y in enumerate(targets(name)):
        hits = [k for k, s in enumerate(sig) if s in (y, y ^ MASK)]
        if not hits:
            sys.exit('%s: output y%d is not computed' % (name, j))
        out.append(hits[0])
    return out


def check_shape(name, gates, arity):
    sig = list(X)
    for k, (ins, tt) in enumerate(gates):
        if len(ins) != arity or len(set(ins)) != arity or max(ins) >= len(sig):
            sys.exit('%s: gate %d has bad inputs %r' % (name, k, ins))
        if not is_function_of(tt, [sig[a] for a in ins]):
            sys.exit('%s: gate %d is not a function of its inputs' % (name, k))
        sig.append(tt)
    return sig


def ternlog_imm(tt, a, b, c):
    """Intel's vpternlogd immediate: bit (A<<2 | B<<1 | C) = result."""
    imm = 0
    for v in range(16):
        idx = (a >> v & 1) << 2 | (b >> v & 1) << 1 | (c >> v & 1)
        bit = tt >> v & 1
        if imm >> (idx + 8) & 1 and (imm >> idx & 1) != bit:
            raise ValueError('not a function')
        imm |= bit << idx | 1 << (idx + 8)  # bit idx+8 marks "seen"
    return imm & 0xFF


# When x0..x3 reach an S-box (cycles, by the latencies above): in encryption
# LT's last step rotates x0 and x2 after x1 and x3 are done; in decryption
# ILT's XORs into x3 come last.
ARRIVAL = {'S': (4, 0, 4, 0), 'SI': (0, 0, 0, 1)}


def build_t3(name, text, max_depth=None):
    """Exact ternlog program: list of (inputs, imm); outputs exact."""
    gates = parse(text)
    sig = check_shape(name, gates, 3)
    if max_depth is not None:
        depth = [0] * 4
        for ins, _ in gates:
            depth.append(1 + max(depth[i] for i in ins))
        if max(depth) > max_depth:
            sys.exit('%s: circuit deeper than %d' % (name, max_depth))
    outs = locate_outputs(name, sig)
    want = targets(name)
    actual = list(sig)
    for j, k in enumerate(outs):
        actual[k] = want[j]
    # vpternlogd's result waits 1 cycle on its first (destination) operand
    # and ~2 on the other two (AMD Zen 4): each gate takes first the input
    # that makes it ready soonest, and among equals one that dies here, so
    # the compiler needs no register copy.
    last_use = {}
    for k, (ins, _) in enumerate(gates):
        for i in ins:
            last_use[i] = 4 + k
    ready = list(ARRIVAL['SI' if name.startswith('SI') else 'S'])
    prog = []
    for k, (ins, _) in enumerate(gates):
        def rank(p):
            dies = last_use[ins[p]] == 4 + k and ins[p] not in outs
            done = max([ready[ins[p]] + 1] + [ready[ins[q]] + 2 for q in range(3) if q != p])
            return (done, not dies, p)
        first = min(range(3), key=rank)
        ins = [ins[first]] + [ins[q] for q in range(3) if q != first]
        ready.append(max(ready[ins[0]] + 1, ready[ins[1]] + 2, ready[ins[2]] + 2))
        a, b, c = (actual[i] for i in ins)
        prog.append((ins, ternlog_imm(actual[4 + k], a, b, c)))
    # re-simulate the immediates
    sim = list(X)
    for ins, imm in prog:
        a, b, c = (sim[i] for i in ins)
        r = 0
        for v in range(16):
            idx = (a >> v & 1) << 2 | (b >> v & 1) << 1 | (c >> v & 1)
            r |= (imm >> idx & 1) << v
        sim.append(r)
    if [sim[k] for k in outs] != want:
        sys.exit('%s: ternlog program does not reproduce the S-box' % name)
    return prog, outs


L2_OPS = {
    'XOR': lambda a, b: a ^ b,
    'AND': lambda a, b: a & b,
    'ANDN': lambda a, b: ~a & b & MASK,  # Intel's andnot: ~first & second
    'OR': lambda a, b: a | b,
}


def build_l2(name, text):
    """Two-input program: list of (op, a, b); outputs and their flips."""
    gates = parse(text)
    sig = check_shape(name, gates, 2)
    outs = locate_outputs(name, sig)
    actual = list(X)
    prog = []
    for ins, tt in gates:
        for op, f in L2_OPS.items():
            for a, b in (ins, ins[::-1]):
                r = f(actual[a], actual[b])
                if r in (tt, tt ^ MASK):
                    break
            else:
                continue
            break
        else:
            sys.exit('%s: no instruction for gate %r' % (name, ins))
        prog.append((op, a, b))
        actual.append(r)
    flip = 0
    for j, (k, y) in enumerate(zip(outs, targets(name))):
        if actual[k] == y ^ MASK:
            flip |= 1 << j
    sim = list(X)
    for op, a, b in prog:
        sim.append(L2_OPS[op](sim[a], sim[b]))
    for j, (k, y) in enumerate(zip(outs, targets(name))):
        if sim[k] ^ (MASK if flip >> j & 1 else 0) != y:
            sys.exit('%s: two-input program does not reproduce the S-box' % name)
    return prog, outs, flip


def l2_depth(prog, outs):
    depth = [0] * 4
    for _, a, b in prog:
        depth.append(1 + max(depth[a], depth[b]))
    return max(depth[k] for k in outs)


def var(k):
    return 'x%d' % k if k < 4 else 'fb_s%d' % k


def macro(lines):
    width = max(len(s) for s in lines)
    out = [s.ljust(width) + ' \\' for s in lines[:-1]]
    return '\n'.join(out + [lines[-1]]) + '\n'


def emit(out):
    names = ['S%d' % i for i in range(8)] + ['SI%d' % i for i in range(8)]
    w = out.append
    w('/* Generated by gen/serpent_tables.py from the Serpent specification; do not edit. */\n')
    w('#ifndef FB_SERPENT_TABLES_H\n#define FB_SERPENT_TABLES_H\n\n')
    w('/* Key-schedule constant: fractional part of the golden ratio times 2^32. */\n')
    w('#define FB_SERPENT_PHI 0x%08xu\n\n' % phi32())
    w('/*\n * Bitsliced S-boxes.  Each macro maps the words x0..x3 (lvalues) in place\n'
      ' * through one S-box: FB_SERPENT_Sn_* for Sn, FB_SERPENT_SIn_* for its inverse.\n'
      ' *   _T3(T, TERN, ...): TERN(a, b, c, imm) is a three-input LUT with Intel\'s\n'
      ' *     vpternlogd immediate (bit a<<2 | b<<1 | c); outputs are exact.\n'
      ' *   _D2(T, TERN, ...): the same, a circuit of depth two (for latency).\n'
      ' *   _L2(T, AND, OR, XOR, ANDN, ...): ANDN(a, b) = ~a & b.  Outputs whose bit\n'
      ' *     is set in _L2_FLIP come out complemented (the key schedule folds the\n'
      ' *     complement into the next round key).\n'
      ' *   _L2D(...): the same, a shallower circuit, _L2D_FLIP.\n'
      ' * T is the word type of the temporaries.\n */\n\n')
    total3 = total2 = totald = 0
    for fam, data, depth in (('T3', T3, None), ('D2', D2, 2)):
        for name in names:
            prog, outs = build_t3(name, data[name], depth)
            if fam == 'T3':
                total3 += len(prog)
            else:
                totald += len(prog)
            lines = ['#define FB_SERPENT_%s_%s(T, TERN, x0, x1, x2, x3) do {' % (name, fam)]
            for k, (ins, imm) in enumerate(prog):
                args = ', '.join(var(i) for i in ins)
                lines.append('\tT %s = TERN(%s, 0x%02x);' % (var(4 + k), args, imm))
            lines.append('\t' + ' '.join('x%d = %s;' % (j, var(k)) for j, k in enumerate(outs)))
            lines.append('} while (0)')
            w('/* %s: %d three-input gates%s */\n'
              % (name, len(prog), ', depth two' if depth else ''))
            w(macro(lines) + '\n')
    for fam, data in (('L2', L2), ('L2D', L2D)):
        for name in names:
            if name not in data:
                continue
            prog, outs, flip = build_l2(name, data[name])
            if fam == 'L2':
                total2 += len(prog)
            lines = ['#define FB_SERPENT_%s_%s(T, AND, OR, XOR, ANDN, x0, x1, x2, x3) do {'
                     % (name, fam)]
            for k, (op, a, b) in enumerate(prog):
                lines.append('\tT %s = %s(%s, %s);' % (var(4 + k), op, var(a), var(b)))
            lines.append('\t' + ' '.join('x%d = %s;' % (j, var(k)) for j, k in enumerate(outs)))
            lines.append('} while (0)')
            w('/* %s: %d two-input gates, depth %d */\n' % (name, len(prog), l2_depth(prog, outs)))
            w('#define FB_SERPENT_%s_%s_FLIP 0x%xu\n' % (name, fam, flip))
            w(macro(lines) + '\n')
    w('/* Gates in all (16 S-boxes each): T3 %d, D2 %d, L2 %d. */\n\n' % (total3, totald, total2))
    w('#endif\n')


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith('-'):
        sys.exit('usage: serpent_tables.py OUTPATH')
    out = []
    emit(out)
    with open(sys.argv[1], 'w') as f:
        f.write(''.join(out))


if __name__ == '__main__':
    main()
