#!/usr/bin/env python3
"""An external SFrame implementation for `sframe-conform diff --external`.

It speaks the harness's JSON-lines protocol on stdin/stdout (see README.md, "External
implementations") and reads sections itself: a small, independent SFrame reader in Python
(versions 1-3, every ABI, default and flex FDEs). Use it as a template for putting another
implementation under the harness: replace `decode` and `find_fre` with calls into yours.

    cargo run --bin sframe-conform -- diff --external "python3 harness/examples/external-adapter.py" corpus/
"""

import json
import struct
import sys

NAME = "python-example"
VERSION = "python-example 0.1"


class Reject(Exception):
    """The section cannot be read; the argument is the error class."""


def regs(abi):
    # DWARF numbers of SP, FP and the RA register per ABI (AMD64, AArch64, s390x psABIs).
    return {3: (7, 6, 16), 1: (31, 29, 30), 2: (31, 29, 30), 4: (15, 11, 14)}[abi]


def slot(off):
    return {"rule": "expr", "base": "cfa", "offset": off, "deref": True}


def reg_expr(reg, off, deref=False):
    return {"rule": "expr", "base": {"reg": reg}, "offset": off, "deref": deref}


class Section:
    def __init__(self, data):
        if len(data) < 28:
            raise Reject("too-short")
        if data[:2] == b"\xe2\xde":
            self.e = "<"
        elif data[:2] == b"\xde\xe2":
            self.e = ">"
        else:
            raise Reject("bad-magic")
        self.data = data
        self.version, self.flags, self.abi = data[2], data[3], data[4]
        if self.version not in (1, 2, 3):
            raise Reject("bad-version")
        if self.abi not in (1, 2, 3, 4):
            raise Reject("bad-abi")
        self.fixed_fp, self.fixed_ra = struct.unpack_from("bb", data, 5)
        aux = data[7]
        self.num_fdes, self.num_fres, self.fre_len, fdeoff, freoff = struct.unpack_from(self.e + "5I", data, 8)
        self.hsize = 28 + aux
        self.fde_base = self.hsize + fdeoff
        self.fre_base = self.hsize + freoff
        size = {1: 17, 2: 20, 3: 16}[self.version]
        self.fde_size = size
        if self.fde_base + self.num_fdes * size > len(data) or self.fre_base + self.fre_len > len(data):
            raise Reject("out-of-bounds")
        self.pcrel = self.version != 1 and self.flags & 4

    def u(self, fmt, off):
        try:
            return struct.unpack_from(self.e + fmt, self.data, off)[0]
        except struct.error:
            raise Reject("out-of-bounds")

    def fde(self, i):
        off = self.fde_base + i * self.fde_size
        if self.version == 3:
            start, size, fre_off = self.u("q", off), self.u("I", off + 8), self.u("I", off + 12)
            attr = self.fre_base + fre_off
            num, info, info2, rep = self.u("H", attr), self.u("B", attr + 2), self.u("B", attr + 3), self.u("B", attr + 4)
            first = attr + 5
        else:
            start, size, fre_off, num = self.u("i", off), self.u("I", off + 4), self.u("I", off + 8), self.u("I", off + 12)
            info = self.u("B", off + 16)
            info2 = 0
            rep = self.u("B", off + 17) if self.version == 2 else 0
            first = self.fre_base + fre_off
        if self.pcrel:
            start += off
        if info & 0xF > 2:
            raise Reject("bad-fre-type")
        return {"start": start, "size": size, "num": num, "info": info, "info2": info2, "rep": rep, "first": first}

    def fres(self, f):
        off = f["first"]
        asz = [1, 2, 4][f["info"] & 0xF]
        end = self.fre_base + self.fre_len
        for _ in range(min(f["num"], 100000)):
            if off + asz + 1 > end:
                raise Reject("fre-out-of-bounds")
            start = self.u({1: "B", 2: "H", 4: "I"}[asz], off)
            info = self.u("B", off + asz)
            wsz = (info >> 5) & 3
            if wsz == 3:
                raise Reject("bad-dataword-size")
            w = [1, 2, 4][wsz]
            count = (info >> 1) & 0xF
            words_at = off + asz + 1
            if words_at + count * w > end:
                raise Reject("fre-out-of-bounds")
            words = [self.u({1: "b", 2: "h", 4: "i"}[w], words_at + k * w) for k in range(count)]
            yield start, info, w, words
            off = words_at + count * w

    def row(self, f, info, w, words):
        mangled = bool(info & 0x80)
        sp, fp, _ = regs(self.abi)
        fde_type = f["info2"] & 0x1F
        if not words:
            return {"cfa": {"rule": "undefined"}, "ra": {"rule": "undefined"}, "fp": {"rule": "same_value"}, "ra_mangled": mangled}
        fixed = lambda v: slot(v) if v != 0 else {"rule": "same_value"}
        if fde_type == 1:  # flex, v3 manual 3.2
            def pair(ctl, off):
                ctl &= (1 << (8 * w)) - 1
                base = {"reg": ctl >> 3} if ctl & 1 else "cfa"
                return {"rule": "expr", "base": base, "offset": off, "deref": bool(ctl & 2)}
            cfa = pair(words[0], words[1]) if len(words) >= 2 else None
            if cfa and self.abi == 4:
                # GNU as and libsframe store s390x flex CFA offsets scaled, like default ones.
                cfa["offset"] = cfa["offset"] * 8 + 160
            i = 2
            ra = fixed(self.fixed_ra)
            if len(words) > i:
                if words[i] == 0:
                    i += 1
                else:
                    ra = pair(words[i], words[i + 1]) if len(words) > i + 1 else None
                    i += 2
            fpl = pair(words[i], words[i + 1]) if len(words) > i + 1 else fixed(self.fixed_fp)
            return {"cfa": cfa, "ra": ra, "fp": fpl, "ra_mangled": mangled}
        base = sp if info & 1 else fp
        off = words[0]
        if self.abi == 4 and self.version != 1:
            off = off * 8 + 160
        cfa = reg_expr(base, off)

        def tracked(o, is_ra):
            if self.abi == 4:
                if is_ra and o == 0:
                    return {"rule": "same_value"}
                if self.version == 2 and o & 1:
                    return reg_expr(o >> 1, 0)
            return slot(o)

        if self.fixed_ra != 0:
            ra, fp_idx = slot(self.fixed_ra), 1
        else:
            ra = tracked(words[1], True) if len(words) > 1 else {"rule": "same_value"}
            fp_idx = 2
        if self.fixed_fp != 0:
            fpl = slot(self.fixed_fp)
        else:
            fpl = tracked(words[fp_idx], False) if len(words) > fp_idx else {"rule": "same_value"}
        return {"cfa": cfa, "ra": ra, "fp": fpl, "ra_mangled": mangled}


def clean(row):
    return {k: v for k, v in row.items() if v is not None}


def decode(data):
    s = Section(data)
    functions = []
    for i in range(s.num_fdes):
        f = s.fde(i)
        fres = [dict(start=st, **clean(s.row(f, info, w, words))) for st, info, w, words in s.fres(f)]
        functions.append({
            "start": f["start"], "size": f["size"], "fre_type": f["info"] & 0xF, "pc_type": (f["info"] >> 4) & 1,
            "fde_type": f["info2"] & 0x1F, "rep_size": f["rep"], "num_fres": f["num"], "fres": fres,
        })
    header = {"version": s.version, "flags": s.flags, "abi": s.abi, "cfa_fixed_fp_offset": s.fixed_fp,
              "cfa_fixed_ra_offset": s.fixed_ra, "num_fdes": s.num_fdes}
    return {"header": header, "functions": functions}


def find_fre(s, pc):
    for i in range(s.num_fdes):
        f = s.fde(i)
        if not (f["start"] <= pc < f["start"] + f["size"]):
            continue
        off = pc - f["start"]
        if (f["info"] >> 4) & 1:
            if s.version == 1:
                match = lambda st: (off & st) >= st
            elif f["rep"] == 0:
                raise Reject("rep-size-zero")
            else:
                off %= f["rep"]
                match = lambda st: st <= off
        else:
            match = lambda st: st <= off
        best = None
        for st, info, w, words in s.fres(f):
            if match(st):
                best = dict(function_start=f["start"], fre_start=st, **clean(s.row(f, info, w, words)))
        return best
    return None


def outcome(fn):
    try:
        return {"status": "ok", "value": fn()}
    except Reject as e:
        return {"status": "rejected", "class": str(e)}


def answer(req):
    op = req.get("op")
    if op == "hello":
        return {"status": "ok", "value": {"name": NAME, "version": VERSION, "versions": [1, 2, 3]}}
    if op == "decode":
        return outcome(lambda: decode(bytes.fromhex(req["data"])))
    if op == "find_fre":
        data = bytes.fromhex(req["data"])
        try:
            s = Section(data)
        except Reject as e:
            return {"status": "ok", "value": [{"status": "rejected", "class": str(e)} for _ in req["pcs"]]}
        return {"status": "ok", "value": [outcome(lambda pc=pc: find_fre(s, pc)) for pc in req["pcs"]]}
    return {"status": "unsupported", "reason": f"no operation {op!r}"}


def main():
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(answer(json.loads(line))) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
