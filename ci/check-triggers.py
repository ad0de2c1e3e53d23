"""ci/check-triggers' reading of an ASan report as a trigger, and the comparison."""
import re
import sys
from collections import Counter


def classify(path, status):
    text = open(path, errors="replace").read()
    if status == 124:
        return "hang"
    m = re.search(r"ERROR: AddressSanitizer: ([\w-]+)", text)
    if m:
        kind = m.group(1)
        fn = next((f for f in re.findall(r"#\d+ 0x[0-9a-f]+ in (\w+)", text)
                   if f.startswith(("sframe_", "flip_"))), "?")
        if fn in ("sframe_decode", "sframe_fde_tbl_init"):
            return "libsframe-decode-copies-past-buffer"
        if fn in ("sframe_decode_fre", "sframe_decode_fre_start_address"):
            if kind == "stack-buffer-overflow":
                return "libsframe-fre-data-words-overflow"
            return "libsframe-fre-walk-past-fre-bytes"
        if fn.startswith("flip_"):
            # The byte-swapping pass of a foreign-endian section (flip_sframe, flip_fde,
            # flip_fre, 2.47's flip_sframe_fdes_with_fres_v2/_v3, flip_fde_attr_v3).
            return "libsframe-flip-past-buffer"
        if fn.startswith(("sframe_decoder_get_funcdesc", "sframe_get_funcdesc_with_addr")):
            return "libsframe-fde-table-truncated"
        return f"asan:{kind}:{fn}"
    m = re.search(r"(\w+): Assertion `", text)
    if m:
        fn = m.group(1)
        return {
            "sframe_fre_start_addr_size": "libsframe-invalid-fre-type",
            "sframe_decode_fre": "libsframe-fre-data-words-overflow",
            "sframe_decoder_get_fre": "libsframe-fre-start-past-function",
        }.get(fn, f"assert:{fn}")
    if status == 0 and re.search(r"^rejected 2001$", text, re.M):
        # SFRAME_ERR_NOMEM: an allocation failed (or, in 2.40, the header check failed).
        return "refused-nomem"
    if status == 0 and re.search(r"^(ok|rejected \d+)$", text, re.M):
        return "clean"
    return f"exit-{status}"


# objdump 2.47's own assertions (sframe-dump.c), by line.
OBJDUMP_ASSERTIONS = {
    ("dump_sframe_func_fres_flex", "387"): "objdump-2.47-flex-fre-without-cfa-offset",
    # `sframe_assert (!err_ra_offset)` on the `fre` sframe_decoder_get_fre never wrote.
    ("dump_sframe_func_fres_flex", "369"): "objdump-2.47-flex-first-fre-uninitialized",
    ("sframe_get_reg_name", "77"): "objdump-2.47-register-name-of-unknown-abi",
}


def classify_objdump(path, status):
    """objdump --sframe over the ASan libsframe: a report or assertion as a trigger; a
    listing, or a refusal (objdump says why and exits 1), is clean."""
    text = open(path, errors="replace").read()
    m = re.search(r"sframe-dump\.c:(\d+): (\w+): Assertion `", text)
    if m and (m.group(2), m.group(1)) in OBJDUMP_ASSERTIONS:
        return OBJDUMP_ASSERTIONS[(m.group(2), m.group(1))]
    got = classify(path, status)
    if got.startswith("exit-") and re.search(
            r"AddressSanitizer failed to allocate|SFrame decode failure: Out of Memory", text):
        # ASan's allocator refused a block (allocator_may_return_null): sframe_decode failed
        # with SFRAME_ERR_NOMEM (2.47's objdump prints sframe_errmsg; a function table of
        # sfh_num_fdes 24-byte entries larger than the host's memory).
        return "refused-nomem"
    # A listing or a refusal. UBSan's reports of misaligned loads (2.44's flip of a
    # foreign-endian section swaps fields in place at any address) end nothing: read as the
    # libsframe check reads the driver's, by what ends the run.
    if got.startswith("exit-") and status in (0, 1) and "ERROR: AddressSanitizer" not in text:
        return "clean"
    return got


def compare(model_path, asan_path, tool):
    model = {}
    for line in open(model_path):
        f, rel, what = line.rsplit(" ", 2)
        model[(f, rel)] = what.strip()
    agree, disagree = Counter(), []
    for line in open(asan_path):
        f, rel, _status, got = line.rsplit(" ", 3)
        got = got.strip()
        want = model.get((f, rel), "missing")
        if got == "unsupported":
            # The objdump adapter gives objdump nothing (no magic, or an ELF file of a byte
            # order its machine cannot have).
            agree["unsupported (no objdump reads it; not compared)"] += 1
        elif want == "objdump-2.47-flex-first-fre-uninitialized" and got in (
                "clean", "objdump-2.47-flex-fre-without-cfa-offset",
                "objdump-2.47-register-name-of-unknown-abi"):
            # An uninitialized read: no sanitizer here sees it, and what objdump then does
            # depends on the stack's bytes (:369 when they are no sane FRE).
            agree[want + " (ASan: " + got + ", after the uninitialized read)"] += 1
        elif want == got:
            agree[want] += 1
        elif (want == "libsframe-2.44-v1-layout-copies-past-buffer"
              and rel in ("libsframe-2.44", "objdump-2.44")
              and got == "libsframe-decode-copies-past-buffer"):
            # The bad access is sframe_decode's copy either way; the model says why it runs
            # past (v2's descriptor stride on a v1 section whose v1 layout fits, F0112).
            agree[want + " (ASan: sframe_decode's copy)"] += 1
        elif got == "refused-nomem" and want == "clean":
            agree["clean"] += 1
        elif got == "refused-nomem" and want == "libsframe-decode-copies-past-buffer":
            # The worker's heap maps blocks MAP_NORESERVE; ASan's allocator refuses a function
            # table larger than the host's memory, so the copy past the buffer never runs.
            agree[want + " (ASan: the table's allocation refused)"] += 1
        else:
            disagree.append((f, rel, want, got))
    n = sum(agree.values()) + len(disagree)
    print(f"ci/check-triggers: {tool}: {n} (input, release) pairs: {n - len(disagree)} agree, {len(disagree)} disagree")
    for k, v in sorted(agree.items()):
        print(f"  agree {v:6} {k}")
    for f, rel, want, got in disagree:
        print(f"  DISAGREE {f} {rel}: model {want}, ASan {got}")
    return 1 if disagree else 0


if __name__ == "__main__":
    if sys.argv[1] == "classify":
        print(classify(sys.argv[2], int(sys.argv[3])))
    elif sys.argv[1] == "classify-objdump":
        print(classify_objdump(sys.argv[2], int(sys.argv[3])))
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3], sys.argv[4]))
