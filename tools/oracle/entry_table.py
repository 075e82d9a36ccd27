"""Writes the table of Inductor's pattern entries (docs/inductor_entries.md) from the oracle's
entries.json and joint.json/postgrad.json (tests/data/inductor/, written by inductor_oracle.py).

    python3 tools/oracle/entry_table.py tests/data/inductor > docs/inductor_entries.md

The `ported` column comes from PORTED and PORTED_JOINT_INDEX below: entry name (or position) (without the @id suffix) -> where the
port lives (tests/rewrite/test_inductor_joint.cpp checks its counts against the oracle's). An entry not listed there is not ported yet.
"""
import collections, json, os, re, sys

PORTED = {
    "fix_iota_device:_return_true": "yes: `rules::inductor_joint()`",
    "pointless_convert:_return_true": "yes: `rules::inductor_joint()`",
    "bmm_to_mm:_return_true": "yes: `rules::inductor_joint()`",
    "unfuse_bias_add_to_pointwise:should_prefer_unfused_addmm": "yes: `rules::inductor_post_grad()`",
    "addmm:is_valid_addmm_fusion": "yes: `rules::inductor_post_grad()`",
    "pointless_cumsum_replacement:_return_true": "yes: `rules::inductor_post_grad()`",
    "reuse_partial:_return_true": "yes: `rules::inductor_post_grad()`",
    "scatter_upon_const_tensor:scatter_upon_const_tensor_extra_check": "yes: `rules::inductor_joint()`",
    "randperm_index_add_pattern:check_fn": "yes: `rules::inductor_joint()` and `rules::inductor_post_grad()` (one rule)",
}

# Entries of joint_graph.patterns ported by position, where one name covers several forms
# (fuse_attention.py registers each SDPA pattern's training form, then its inference form,
# for float32 and then for float16).
PORTED_JOINT_INDEX = {
    15: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    17: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    71: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    73: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    22: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    25: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    31: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    87: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    81: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    78: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    63: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    119: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    35: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    91: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    37: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    93: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    6: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    8: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    43: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    45: "yes (float32 batch-1 inference form, CPU replacement): `rules::inductor_joint()`",
    99: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    101: "yes (float16 batch-1 inference form, CPU replacement): `rules::inductor_joint()`",
    49: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    105: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    28: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    84: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    47: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    103: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    51: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    53: "yes (float32 batch-1 inference form, CPU replacement): `rules::inductor_joint()`",
    107: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    109: "yes (float16 batch-1 inference form, CPU replacement): `rules::inductor_joint()`",
    55: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    57: "yes (float32 batch-1 inference form, CPU replacement): `rules::inductor_joint()`",
    111: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    113: "yes (float16 batch-1 inference form, CPU replacement): `rules::inductor_joint()`",
    59: "yes (float32 inference form, CPU replacement): `rules::inductor_joint()`",
    61: "yes (float32 batch-1 inference form, CPU replacement): `rules::inductor_joint()`",
    115: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    117: "yes (float16 batch-1 inference form, CPU replacement): `rules::inductor_joint()`",
    121: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    123: "yes (float16 batch-1 inference form, CPU replacement): `rules::inductor_joint()`",
    125: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    127: "yes (float16 batch-1 inference form, CPU replacement): `rules::inductor_joint()`",
    129: "yes (float16 inference form, CPU replacement): `rules::inductor_joint()`",
    131: "yes (float16 batch-1 inference form, CPU replacement): `rules::inductor_joint()`",
    133: "yes (float16, float32 mask, inference form, CPU replacement): `rules::inductor_joint()`",
    135: "yes (float16 batch-1, float32 mask, inference form, CPU replacement): `rules::inductor_joint()`",
}


# Why an entry is not ported yet, by the start of its name.
NOT_YET = {
    "_sfdp_pattern_": "not yet: SDPA pattern (serialized ATen tree; needs its extra checks and the replacement's trace)",
    "bmm_pattern[should_pad_bmm]": "left out: pad_mm decides by timing kernels on the device",
    "mm_pattern[should_pad_mm]": "left out: pad_mm decides by timing kernels on the device",
    "addmm_pattern[should_pad_addmm]": "left out: pad_mm decides by timing kernels on the device",
    "randperm_index_pattern": "left out: at torch 2.11 every match raises (its pattern lost the `slice_shape` its "
                              "check asks for) and fails torch.compile: no result to reproduce (oracle graph "
                              "randperm_index_pair)",
}


def shape_of(pattern):
    """The pattern's tree with its argument names numbered by first appearance: two trees with
    equal shapes match the same nodes and bind them alike, whatever the names."""
    names = {}
    return re.sub(r"KeywordArg\('([^']*)'\)", lambda m: f"KeywordArg#{names.setdefault(m.group(1), len(names))}",
                  pattern)


def covering_entries(entries):
    """Entry index -> the earlier entry that covers it: one listed under a common target op with
    the same tree shape and the same check (check_key). A pass tries a node's entries in order,
    and a matching register_replacement entry always replaces (erases) the node, so the later
    entry can never fire: Inductor keeps both only because their argument names differ (its
    dedup of the SDPA inference forms, whose dropout became a no-op, compares names too). Needs
    the full pattern text and check_key (oracle runs after merge_oracle.py)."""
    first, out = {}, {}
    for i, x in enumerate(entries):
        if "check_key" not in x or x["kind"] != "ReplacementPatternEntry":
            continue
        key = (shape_of(x["pattern"]), x["check_key"])
        for t in x["targets"]:
            if (t, key) in first:
                out.setdefault(i, first[(t, key)])
            else:
                first[(t, key)] = i
    return out


def status(n, kind, joint_index=None, covered_by=None):
    if joint_index in PORTED_JOINT_INDEX:
        return PORTED_JOINT_INDEX[joint_index]
    if covered_by is not None:
        ported = PORTED_JOINT_INDEX.get(covered_by, "")
        return (f"needs no port: #{covered_by} has the same tree (up to argument names) and check and "
                f"comes first, so this entry never fires{' (#' + str(covered_by) + ' is ported)' if ported else ''}")
    if n in PORTED:
        return PORTED[n]
    if kind == "LoweringPatternEntry":
        return "left out: a lowering pattern (emits Inductor IR, not a graph rewrite)"
    for prefix, why in NOT_YET.items():
        if n.startswith(prefix):
            return why
    return "not yet"


def short(name):
    return name.split("@")[0]


def targets(ts):
    out = []
    for t in ts:
        # "('call_function', <OpOverload(op='aten.bmm', overload='default')>)" -> aten.bmm.default
        if "op='" in t:
            op = t.split("op='")[1].split("'")[0]
            ov = t.split("overload='")[1].split("'")[0] if "overload='" in t else ""
            out.append(op + ("." + ov if ov else ""))
        else:
            out.append(t)
    return ", ".join(out)


def main(d):
    e = json.load(open(os.path.join(d, "entries.json")))
    joint = json.load(open(os.path.join(d, "joint.json")))["graphs"]
    post = json.load(open(os.path.join(d, "postgrad.json")))["graphs"]
    fired_joint, fired_post = collections.defaultdict(list), collections.defaultdict(list)
    listed = {x["name"] for x in e["joint"]}
    by_short = collections.defaultdict(list)
    for x in e["joint"]:
        by_short[short(x["name"])].append(x)
    for g, rec in joint.items():
        for name, c in rec.get("per_entry", {}).items():
            if name not in listed:
                # A graph added by a later run (--only) carries that process's @ids: match by
                # name; where several forms share it (SDPA), the inference form (one output) of
                # the graph's dtype (fuse_attention registers float32's forms, then float16's).
                forms = by_short[short(name)]
                inference = [x for x in forms if not x["pattern"].startswith("MultiOutputPattern")] or forms
                name = (inference[-1] if "_half" in g else inference[0])["name"] if inference else short(name)
            fired_joint[name].append(f"{g}{'*' if rec.get('changed') else ''} ({c})")
    for g, rec in post.items():
        for p in rec.get("passes", []):
            for name, c in p.get("per_entry", {}).items():
                # postgrad.json comes from another process: its @ids differ, match by name
                fired_post[short(name)].append(f"{g}{'*' if rec.get('changed') else ''} ({c})")
    print(f"# Inductor's pattern entries (torch {e['torch']})\n")
    print("Every entry of `joint_graph.patterns` after `lazy_init()` and of `post_grad.pass_patterns[i]`,")
    print("as `tools/oracle/inductor_oracle.py` lists them (`tests/data/inductor/entries.json`).")
    print("*Fired on*: the oracle graphs whose run called the entry's handler, with the count;")
    print("`*` marks a graph the pass changed. Generated by `tools/oracle/entry_table.py`.\n")
    sections = [("joint_graph.patterns", e["joint"])] + [(f"post_grad.pass_patterns[{i}]", p)
                                                         for i, p in enumerate(e["post_grad"])]
    for title, entries in sections:
        print(f"## {title} ({len(entries)} entries)\n")
        if not entries:
            print("(empty at this torch version)\n")
            continue
        print("| # | entry | kind | target op | source | extra check | fired on | ported |")
        print("|---|---|---|---|---|---|---|---|")
        fired = fired_joint if title == "joint_graph.patterns" else fired_post
        covered = covering_entries(entries) if title == "joint_graph.patterns" else {}
        for i, x in enumerate(entries):
            n = short(x["name"])
            f = "; ".join((fired.get(x["name"]) or fired.get(n) or [])[:4]) or "—"
            if i in covered and f != "—":
                sys.exit(f"entry {i} fired ({f}) though #{covered[i]} covers it: covering_entries is wrong")
            print(f"| {i} | `{n.split(':')[0]}` | {x['kind']} | {targets(x['targets'])} | {x['source'] or '—'} | "
                  f"{x['check']} | {f} | {status(n, x['kind'], i if title == 'joint_graph.patterns' else None, covered.get(i))} |")
        print()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/inductor")
