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


def compare(model_path, asan_path):
    model = {}
    for line in open(model_path):
        f, rel, what = line.rsplit(" ", 2)
        model[(f, rel)] = what.strip()
    agree, disagree = Counter(), []
    for line in open(asan_path):
        f, rel, _status, got = line.rsplit(" ", 3)
        got = got.strip()
        want = model.get((f, rel), "missing")
        if want == "not-modelled":
            agree["not-modelled (foreign endian; not compared)"] += 1
        elif want == got:
            agree[want] += 1
        elif (want == "libsframe-2.44-v1-layout-copies-past-buffer" and rel == "libsframe-2.44"
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
    print(f"ci/check-triggers: {n} (input, release) pairs: {n - len(disagree)} agree, {len(disagree)} disagree")
    for k, v in sorted(agree.items()):
        print(f"  agree {v:6} {k}")
    for f, rel, want, got in disagree:
        print(f"  DISAGREE {f} {rel}: model {want}, ASan {got}")
    return 1 if disagree else 0


if __name__ == "__main__":
    if sys.argv[1] == "classify":
        print(classify(sys.argv[2], int(sys.argv[3])))
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
