#!/usr/bin/env python3
"""Shrinks the DES S-box circuits of gen/des_sbox_circuits.txt by
resubstitution, a post-pass for the circuits gen/des_sbox_search.c builds.

The search builds each output on its own and reuses what earlier outputs
left; it never revisits a gate once placed. This pass does: for each gate
v it computes
  - the gates that die with v (its maximum fanout-free cone, MFFC), and
  - the inputs on which v matters at all (its care set: the inputs where
    flipping v changes some S-box output, the observability don't-cares),
then looks for v's function on that care set among the other gates:
  0: an existing gate,
  1: one new gate over two (lut mode: three) existing gates,
  2: two new gates, g1(a, g2(b, c)) (gate mode only),
  3: three new gates, g1(g2(a, b), g3(c, d)) (gate mode only),
and replaces v when that costs fewer gates than the cone it frees. Moves of
zero gain are taken at random too, so that later passes see other circuits;
restarts keep the smallest circuit. The S-box outputs themselves have no
don't-cares (all 64 inputs are defined), so every change keeps the S-box.
In gatep mode (the single-key rounds' circuits, whose NOTs are absorbed)
a NOT costs nothing: a gate may also be re-made as the complement of its
function, followed by a NOT.

A circuit the search would not have kept can shrink more than the kept
one: --fresh also runs gen/des_sbox_search.c from new seeds and passes each
circuit it returns through the same resubstitution.

Usage:
  python3 gen/des_sbox_resub.py [--file PATH] lut|gate|gatep SECONDS [SBOX ...]
      resubstitution on the circuits of gen/des_sbox_circuits.txt
  python3 gen/des_sbox_resub.py --fresh N SEARCH_SECONDS lut|gate|gatep SECONDS [SBOX ...]
      and on N new circuits per S-box from the search (SEARCH_SECONDS each)
Either rewrites gen/des_sbox_circuits.txt where a circuit got cheaper (then
regenerate src/des/des_bs_sboxes.h with des_sbox_circuits.py).
"""
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import des_sbox_circuits as C  # noqa: E402

M64 = C.M64
OPS2 = ("and", "or", "xor", "andn")


def gate_val(op, a, b):
    if op == "and":
        return a & b
    if op == "or":
        return a | b
    if op == "xor":
        return a ^ b
    return ~a & b & M64  # andn


class Net:
    """A circuit as parallel lists; node i < 6 is input b(i+1)."""

    def __init__(self, circ):
        self.mode = circ.mode
        self.sbox = circ.sbox
        index = {f"n{i}": i for i in range(6)}
        self.op = ["in"] * 6
        self.args = [()] * 6
        self.imm = [0] * 6
        for name, op, args, imm in circ.nodes:
            index[name] = len(self.op)
            self.op.append(op)
            self.args.append(tuple(index[a] for a in args))
            self.imm.append(imm)
        self.outs = [(index[n], neg) for n, neg in circ.outs]

    def copy(self):
        n = Net.__new__(Net)
        n.mode, n.sbox = self.mode, self.sbox
        n.op, n.args, n.imm = list(self.op), list(self.args), list(self.imm)
        n.outs = list(self.outs)
        return n

    def eval_node(self, i, tt):
        a = [tt[x] for x in self.args[i]]
        op = self.op[i]
        if op == "lut":
            return C.lut3(a[0], a[1], a[2], self.imm[i])
        if op == "not":
            return ~a[0] & M64
        return gate_val(op, a[0], a[1])

    def truth(self, override=None):
        tt = []
        for i in range(len(self.op)):
            if i < 6:
                tt.append(C.input_tt(i))
            elif override is not None and i == override[0]:
                tt.append(override[1])
            else:
                tt.append(self.eval_node(i, tt))
        return tt

    def live(self):
        """Nodes reachable from the outputs, with their fanout counts."""
        ref = [0] * len(self.op)
        stack = [o for o, _ in self.outs]
        for o in stack:
            ref[o] += 1
        seen = set()
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            for a in self.args[v]:
                ref[a] += 1
                stack.append(a)
        return seen, ref

    def gates(self):
        """Gates that cost: in gatep mode NOTs are free (absorbed)."""
        return sum(1 for v in self.live()[0] if v >= 6 and not (self.mode == "gatep" and self.op[v] == "not"))

    def to_circuit(self):
        """Back to des_sbox_circuits.Circuit, dead gates dropped, renumbered."""
        alive = self.live()[0]
        c = C.Circuit(self.sbox, self.mode)
        name = {i: f"n{i}" for i in range(6)}
        for v in range(6, len(self.op)):
            if v not in alive:
                continue
            name[v] = f"n{len(name)}"
            c.nodes.append((name[v], self.op[v], [name[a] for a in self.args[v]], self.imm[v]))
        c.outs = [(name[o], neg) for o, neg in self.outs]
        return c


def mffc(net, ref, v):
    """The gates that die if v is no longer computed (v included)."""
    ref = list(ref)
    cone, stack = {v}, [v]
    while stack:
        x = stack.pop()
        for a in net.args[x]:
            ref[a] -= 1
            if ref[a] == 0 and a >= 6:
                cone.add(a)
                stack.append(a)
    return cone


def fanout_cone(net, v, alive):
    users = {}
    for x in alive:
        for a in net.args[x]:
            users.setdefault(a, []).append(x)
    tfo, stack = {v}, [v]
    while stack:
        x = stack.pop()
        for u in users.get(x, ()):
            if u not in tfo:
                tfo.add(u)
                stack.append(u)
    return tfo


def care_set(net, tt, v):
    """Inputs on which v's value reaches an output."""
    flipped = net.truth((v, ~tt[v] & M64))
    m = 0
    for o, _ in net.outs:
        m |= tt[o] ^ flipped[o]
    return m


def find_resub(net, tt, v, m, cands, budget, rnd):
    """A way to make v's function on m from cands with at most budget new
    gates: (new gates as [(op, args, imm)], index of the result among
    cands + new), or None. Shuffled so that equal choices vary."""
    t = tt[v] & m
    cl = list(cands)
    rnd.shuffle(cl)
    for u in cl:
        d = (tt[u] ^ t) & m
        if not d:
            return [], u
    if budget < 1:
        return None
    if net.mode == "lut":
        for i in range(len(cl)):
            for j in range(i + 1, len(cl)):
                for k in range(j + 1, len(cl)):
                    imm = lut_fit(t, m, tt[cl[i]], tt[cl[j]], tt[cl[k]], rnd)
                    if imm is not None:
                        return [("lut", (cl[i], cl[j], cl[k]), imm)], None
        return None
    for i in range(len(cl)):
        a = tt[cl[i]]
        if not ((~a ^ t) & m):
            return [("not", (cl[i],), 0)], None
        for j in range(len(cl)):
            if i == j:
                continue
            b = tt[cl[j]]
            for op in OPS2:
                if op != "andn" and j < i:
                    continue
                if not ((gate_val(op, a, b) ^ t) & m):
                    return [(op, (cl[i], cl[j]), 0)], None
    if budget < 2:
        return None
    plan = two_gate(t, m, cl, tt)
    if plan is not None or budget < 3:
        return plan
    return three_gate(t, m, cl, tt, rnd)


PAIRS_MAX = 400  # candidates kept per condition in three_gate (time bound)


def three_gate(t, m, cl, tt, rnd):
    """g1(w1, w2), w1 and w2 new gates over two candidates each, equal to t on
    m: xor - w2 = t ^ w1 (a lookup); and - both contain t, their AND is t;
    or - both inside t, their OR is t; andn(w1, w2) - w2 contains t, w1 misses
    it. The last three search pairs among at most PAIRS_MAX of each kind."""
    by_val = {}
    for i in range(len(cl)):
        for j in range(len(cl)):
            if i == j:
                continue
            for op in OPS2:
                if op != "andn" and j < i:
                    continue
                w = gate_val(op, tt[cl[i]], tt[cl[j]]) & m
                by_val.setdefault(w, (op, (cl[i], cl[j]), 0))
    vals = list(by_val)
    for w in vals:
        u = by_val.get(t ^ w)
        if u is not None and t ^ w != w:
            return [by_val[w], u, ("xor", (-2, -1), 0)], None
    cover = [w for w in vals if not (t & ~w)]
    inside = [w for w in vals if not (w & ~t & m)]
    miss = [w for w in vals if not (w & t)]
    for lst in (cover, inside, miss):
        if len(lst) > PAIRS_MAX:
            rnd.shuffle(lst)
            del lst[PAIRS_MAX:]
    for x in range(len(cover)):
        w1 = cover[x]
        for w2 in cover[x + 1:]:
            if (w1 & w2) == t:
                return [by_val[w1], by_val[w2], ("and", (-2, -1), 0)], None
    for x in range(len(inside)):
        w1 = inside[x]
        for w2 in inside[x + 1:]:
            if (w1 | w2) == t:
                return [by_val[w1], by_val[w2], ("or", (-2, -1), 0)], None
    for w1 in miss:
        for w2 in cover:
            if (~w1 & w2 & m) == t:
                return [by_val[w1], by_val[w2], ("andn", (-2, -1), 0)], None
    return None


def two_gate(t, m, cl, tt):
    """g1(u, g2(x, y)) equal to t on m, by the conditions each g1 puts on w =
    g2(x, y): xor - w = t ^ u; and - t inside w, u = t where w; or - w inside
    t, u = t outside w; andn(u, w) - t inside w, u = ~t where w; andn(w, u) -
    t outside w, u = t outside w."""
    vals = [tt[u] & m for u in cl]
    by_val = {}
    for u, x in zip(cl, vals):
        by_val.setdefault(x, u)
    nt = ~t & m
    for i in range(len(cl)):
        for j in range(len(cl)):
            if i == j:
                continue
            for op2 in OPS2:
                if op2 != "andn" and j < i:
                    continue
                w = gate_val(op2, tt[cl[i]], tt[cl[j]]) & m
                inner = (op2, (cl[i], cl[j]), 0)
                u = by_val.get(t ^ w)
                if u is not None:
                    return [inner, ("xor", (u, -1), 0)], None
                if not (t & ~w):  # t inside w
                    for u, x in zip(cl, vals):
                        if not ((x ^ t) & w):
                            return [inner, ("and", (u, -1), 0)], None
                        if not ((x ^ nt) & w):
                            return [inner, ("andn", (u, -1), 0)], None
                if not (w & ~t):  # w inside t
                    for u, x in zip(cl, vals):
                        if not ((x ^ t) & ~w & m):
                            return [inner, ("or", (u, -1), 0)], None
                if not (t & w):  # t outside w: andn(w, u)
                    for u, x in zip(cl, vals):
                        if not ((x ^ t) & ~w & m):
                            return [inner, ("andn", (-1, u), 0)], None
    return None


def lut_fit(t, m, x, y, z, rnd):
    v = d = 0
    for k in range(8):
        q = m & (x if k & 4 else ~x) & (y if k & 2 else ~y) & (z if k & 1 else ~z)
        if not q:
            continue
        on = t & q
        if on and on != q:
            return None
        d |= 1 << k
        if on:
            v |= 1 << k
    return v | (rnd.getrandbits(8) & ~d & 0xFF)


def apply(net, v, plan):
    """Replaces v by the plan's result: new gates are appended and v's
    users (and outputs) are pointed at the result. Returns the new net in
    topological order."""
    new, res = plan
    net = net.copy()
    made = []  # a negative operand -k is the k-th newest gate made here
    for op, args, imm in new:
        args = tuple(made[a] if a < 0 else a for a in args)
        net.op.append(op)
        net.args.append(args)
        net.imm.append(imm)
        made.append(len(net.op) - 1)
    r = made[-1] if new else res
    net.args = [tuple(r if a == v else a for a in args) for args in net.args]
    net.outs = [(r if o == v else o, neg) for o, neg in net.outs]
    return topo(net)


def topo(net):
    """Reorders the nodes so every gate follows its operands."""
    order, state = [], {}

    def visit(x):
        stack = [(x, 0)]
        while stack:
            y, k = stack.pop()
            if state.get(y) == 2:
                continue
            if k == 0:
                if state.get(y) == 1:
                    continue
                state[y] = 1
                stack.append((y, 1))
                for a in net.args[y]:
                    if state.get(a) != 2:
                        stack.append((a, 0))
            else:
                state[y] = 2
                order.append(y)

    for i in range(6):
        state[i] = 2
        order.append(i)
    for o, _ in net.outs:
        visit(o)
    pos = {x: i for i, x in enumerate(order)}
    out = net.copy()
    out.op = [net.op[x] for x in order]
    out.args = [tuple(pos[a] for a in net.args[x]) for x in order]
    out.imm = [net.imm[x] for x in order]
    out.outs = [(pos[o], neg) for o, neg in net.outs]
    return out


def flip(tt, v):
    """tt with node v complemented: a plan for it makes ~v."""
    tt = list(tt)
    tt[v] = ~tt[v] & M64
    return tt


def negated(plan):
    """A plan for ~v followed by a (free, gatep) NOT."""
    if plan is None:
        return None
    new, res = plan
    if not new:
        return [("not", (res,), 0)], None
    return new + [("not", (-1,), 0)], None


def one_pass(net, rnd, zero_moves, deadline):
    """Tries every gate once (random order); takes each move that gains, and
    zero-gain moves with probability zero_moves. Returns (net, changed)."""
    changed = False
    order = list(range(6, len(net.op)))
    rnd.shuffle(order)
    for v0 in order:
        if time.time() >= deadline:
            break
        if v0 >= len(net.op):
            continue
        alive, ref = net.live()
        if v0 not in alive:
            continue
        tt = net.truth()
        cone = mffc(net, ref, v0)
        tfo = fanout_cone(net, v0, alive)
        cands = [u for u in sorted(alive | set(range(6))) if u not in tfo and u not in cone]
        m = care_set(net, tt, v0)
        if m == 0:
            continue
        two = net.mode in ("gate", "gatep")
        size = sum(1 for x in cone if not (net.mode == "gatep" and net.op[x] == "not"))
        budget = min(size, 2 if two else 1)
        if two and size >= 4:
            budget = 3  # three new gates only where they gain
        plan = None
        for b in range(budget + 1):
            if size - b < 0:
                break
            if size - b == 0 and rnd.random() >= zero_moves:
                break
            plan = find_resub(net, tt, v0, m, cands, b, rnd)
            if plan is None and net.mode == "gatep":
                plan = negated(find_resub(net, flip(tt, v0), v0, m, cands, b, rnd))
            if plan is not None:
                break
        if plan is None:
            continue
        before = net.gates()
        cand = apply(net, v0, plan)
        if cand.gates() <= before:
            cand.to_circuit().check()
            net = cand
            changed = True
    return net, changed


def optimize(circ, seconds, seed):
    rnd = random.Random(seed)
    best = Net(circ)
    best_gates = best.gates()
    end = time.time() + seconds
    while time.time() < end:
        net = Net(circ) if rnd.random() < 0.5 else best.copy()
        for _ in range(40):
            if time.time() >= end:
                break
            net, changed = one_pass(net, rnd, 0.3, end)
            g = net.gates()
            if g < best_gates:
                best, best_gates = net.copy(), g
                print(f"  S{circ.sbox + 1} {circ.mode}: {best_gates} gates", flush=True)
            if not changed:
                break
    return best.to_circuit()


def fresh_circuits(exe, mode, s, n, seconds, rnd):
    """n circuits for S-box s from the search, each from a new seed."""
    tts = ["%016x" % C.output_tt(s, k) for k in range(4)]
    for _ in range(n):
        res = subprocess.run([exe, mode, str(seconds), str(rnd.getrandbits(32))] + tts,
                             capture_output=True, text=True, check=True).stdout.splitlines()
        c = C.parse(res[1:], s, mode)
        c.check()
        yield c


def improve(circs, s, mode, start, seconds, seed, path):
    old = current(circs, s, mode)
    new = optimize(start, seconds, seed)
    new.check()
    print(f"S{s + 1} {mode}: cost (gates and XORs into L) from {cost(start)}, now {cost(new)}; "
          f"kept {cost(old)}", flush=True)
    if cost(new) < cost(old):
        circs[(s, mode)] = new
        C.write_circuits(circs, path)


def current(circs, s, mode):
    """The circuit to beat: for gatep the one the single-key rounds absorb now."""
    return C.gatep_source(circs, s) if mode == "gatep" else circs[(s, mode)]


cost = C.source_cost


def main():
    args = sys.argv[1:]
    path = C.CIRCUITS
    if len(args) >= 2 and args[0] == "--file":  # work on a copy (parallel runs)
        path, args = args[1], args[2:]
    fresh = None
    if len(args) >= 3 and args[0] == "--fresh":
        fresh = (int(args[1]), float(args[2]))
        args = args[3:]
    if len(args) < 2 or args[0] not in C.SOURCES:
        sys.exit(__doc__)
    mode, seconds = args[0], float(args[1])
    sboxes = [int(x) - 1 for x in args[2:]] or list(range(8))
    circs = C.read_circuits(path)
    rnd = random.Random()
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "search")
        if fresh:
            subprocess.check_call(["cc", "-O2", "-o", exe, C.SEARCH_SRC])
        for s in sboxes:
            improve(circs, s, mode, current(circs, s, mode), seconds, rnd.getrandbits(32), path)
            if fresh:
                for c in fresh_circuits(exe, mode, s, fresh[0], fresh[1], rnd):
                    improve(circs, s, mode, c, seconds, rnd.getrandbits(32), path)


if __name__ == "__main__":
    main()
