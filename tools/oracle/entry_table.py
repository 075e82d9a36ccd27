"""Writes the table of Inductor's pattern entries (docs/inductor_entries.md) from the oracle's
entries.json and joint.json/postgrad.json (tests/data/inductor/, written by inductor_oracle.py).

    python3 tools/oracle/entry_table.py tests/data/inductor > docs/inductor_entries.md

The `ported` column comes from PORTED and PORTED_JOINT_INDEX below: entry name (or position) (without the @id suffix) -> where the
port lives (tests/rewrite/test_inductor_joint*.cpp check its counts against the oracle's). An entry not listed there is not ported yet.
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
    "pointless_view:_return_true": "yes: `rules::inductor_joint_early()`",
    "pointless_view_pair:_return_true": "yes: `rules::inductor_joint_early()`",
    "pointless_permute_pair:_return_true": "yes: `rules::inductor_joint_early()`",
    "mul_softmax_pattern:_other_is_broadcasted_in_dim": "yes: `rules::inductor_joint_late()`",
    "div_softmax_pattern:_other_is_broadcasted_in_dim": "yes: `rules::inductor_joint_late()`",
}

# Entries of joint_graph.patterns ported by position, where one name covers several forms
# (fuse_attention.py registers each SDPA pattern's training form, then its inference form,
# for float32 and then for float16).
PORTED_JOINT_INDEX = {
    14: "yes (float32 training form, CPU replacement: the flash kernel and its backward): `rules::inductor_joint()`",
    16: "yes (float32 training form, CPU replacement: the flash kernel and its backward): `rules::inductor_joint()`",
    30: "yes (float32 training form, CPU replacement: the flash kernel and its backward): `rules::inductor_joint()`",
    26: "yes (float32 training form, CPU replacement: the flash kernel and its backward): `rules::inductor_joint()`",
    29: "yes (float32 training form, CPU replacement: the flash kernel and its backward): `rules::inductor_joint()`",
    58: "yes (float32 training form, CPU replacement: the flash kernel and its backward): `rules::inductor_joint()`",
    60: "yes (float32 training form, CPU replacement: the flash kernel and its backward): `rules::inductor_joint()`",
    70: "yes (float16 training form, CPU replacement: the flash kernel and its backward): `rules::inductor_joint()`",
    72: "yes (float16 training form, CPU replacement: the flash kernel and its backward): `rules::inductor_joint()`",
    82: "yes (float16 training form, CPU replacement: the flash kernel and its backward): `rules::inductor_joint()`",
    85: "yes (float16 training form, CPU replacement: the flash kernel and its backward): `rules::inductor_joint()`",
    86: "yes (float16 training form, CPU replacement: the flash kernel and its backward): `rules::inductor_joint()`",
    21: "yes (float32 training form with a mask, CPU replacement: the flash kernel and its backward, given the mask): "
        "`rules::inductor_joint()`",
    34: "yes (float32 training form with a mask, CPU replacement: the flash kernel and its backward, given the mask): "
        "`rules::inductor_joint()`",
    50: "yes (float32 training form with a mask, CPU replacement: the flash kernel and its backward, given the mask): "
        "`rules::inductor_joint()`",
    52: "yes (float32 training form with a mask, CPU replacement: the flash kernel and its backward, given the mask): "
        "`rules::inductor_joint()`",
    54: "yes (float32 training form with a mask, CPU replacement: the flash kernel and its backward, given the mask): "
        "`rules::inductor_joint()`",
    56: "yes (float32 training form with a mask, CPU replacement: the flash kernel and its backward, given the mask): "
        "`rules::inductor_joint()`",
    77: "yes (float16 training form with a mask, CPU replacement: the flash kernel and its backward, given the mask): "
        "`rules::inductor_joint()`",
    90: "yes (float16 training form with a mask, CPU replacement: the flash kernel and its backward, given the mask): "
        "`rules::inductor_joint()`",
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


def parse_pattern(text):
    """A pattern's repr as a tree of tuples: ("call", op, args, kwargs, users), ("kw", name) for a
    KeywordArg, ("any",) for `*` and Arg(), ("list", items), ("multi", outputs), ("lit", text)."""
    pos = 0

    def skip():
        nonlocal pos
        while pos < len(text) and text[pos] == " ":
            pos += 1

    def atom():
        nonlocal pos
        start, depth = pos, 0
        while pos < len(text) and (depth or text[pos] not in ",)]"):
            depth += text[pos] in "([<"
            depth -= text[pos] in ")]>"
            pos += 1
        return text[start:pos].strip()

    def items(close):
        nonlocal pos
        out = []
        skip()
        while text[pos] != close:
            skip()
            m = re.match(r"(\w+)=", text[pos:])
            if m:
                pos += m.end()
                out.append((m.group(1), value()))
            else:
                out.append((None, value()))
            skip()
            if text[pos] == ",":
                pos += 1
            skip()
        pos += 1
        return out

    def value():
        nonlocal pos
        skip()
        if text.startswith("*", pos):
            pos += 1
            return ("any",)
        if text[pos] == "[":
            pos += 1
            return ("list", [v for _, v in items("]")])
        m = re.match(r"(CallFunction|KeywordArg|Arg|MultiOutputPattern)\(", text[pos:])
        if not m:
            return ("lit", atom())
        pos += m.end()
        if m.group(1) == "KeywordArg":
            name = atom().strip("'\"")
            pos += 1
            return ("kw", name)
        args = items(")")
        if m.group(1) == "Arg":
            return ("any",)
        if m.group(1) == "MultiOutputPattern":
            return ("multi", args[0][1][1])
        op = args[0][1][1]
        kwargs = {k: v for k, v in args[1:] if k is not None and k != "_users"}
        users = next((v[1] for k, v in args if k == "_users"), "1")
        return ("call", op, [v for k, v in args[1:] if k is None], kwargs, users)

    return value()


def covers(a, b, bound):
    """Whether tree `a` matches every graph tree `b` matches, binding each KeywordArg of `a` to the
    subtree of `b` in its place (`bound`, filled in). A name bound twice must meet equal subtrees:
    the serialized patterns name each subtree once and reuse it, so equal subtrees are one node.
    Nodes inside both trees must have the same user counts (`_users`)."""
    if a[0] == "any":
        return True
    if a[0] == "kw":
        return bound.setdefault(a[1], b) == b
    if a[0] != b[0]:
        return False
    if a[0] == "call":
        return (a[1] == b[1] and a[4] == b[4] and len(a[2]) == len(b[2]) and a[3].keys() == b[3].keys()
                and all(covers(x, y, bound) for x, y in zip(a[2], b[2]))
                and all(covers(a[3][k], b[3][k], bound) for k in a[3]))
    if a[0] in ("list", "multi"):
        return len(a[1]) == len(b[1]) and all(covers(x, y, bound) for x, y in zip(a[1], b[1]))
    return a == b


# Ops whose output has their input's dtype and device: _sfdp_params_check reads only those of
# query, key, value (and of the mask, which the `add` both trees share brings).
KEEPS_DTYPE_AND_DEVICE = {"aten.permute.default", "aten.expand.default", "aten.view.default", "aten.clone.default"}


def sdpa_inputs_kept(bound):
    """Whether each of query, key and value that the earlier tree binds is the later tree's own
    input of that name under ops that keep its dtype and device."""
    for name in ("query", "key", "value"):
        t = bound.get(name)
        while t is not None and t[0] == "call" and t[1] in KEEPS_DTYPE_AND_DEVICE:
            t = t[2][0]
        if t != ("kw", name):
            return False
    return True


# A later entry's check that implies an earlier entry's on the graphs both match: (later check,
# earlier check) -> (the condition on the earlier tree's bindings, why). _sfdp_extra_check is
# _sfdp_params_check of the same match plus two conditions of its own (not on cuda, a number as
# the scale), and _sfdp_params_check asks only for the dtype and device of its inputs.
SDPA_EXTRA_CHECK = ("_sfdp_extra_check.<locals>.fn(disable_cuda={}, "
                    "scale_factor_op=<OpOverload(op='aten.div', overload='Tensor')>)")
CHECK_IMPLIES = {
    (SDPA_EXTRA_CHECK.format(cuda), "_sfdp_params_check()"):
        (sdpa_inputs_kept, "it is _sfdp_params_check and more, on inputs of the same dtype and device")
    for cuda in ("True", "False")
}


def covering_entries(entries):
    """Entry index -> (the earlier entry that covers it, why). A pass tries a node's entries in
    order, and a matching register_replacement entry always replaces (erases) the node, so a later
    entry under a common target op can never fire where an earlier one
      - has the same tree shape and check (check_key): Inductor keeps both only because their
        argument names differ (its dedup of the SDPA inference forms, whose dropout became a
        no-op, compares names too); or
      - has a tree that matches every graph the later one does and a check the later one's
        implies (CHECK_IMPLIES).
    Needs the full pattern text and check_key (oracle runs after merge_oracle.py)."""
    first, out = {}, {}
    usable = [i for i, x in enumerate(entries) if "check_key" in x and x["kind"] == "ReplacementPatternEntry"]
    trees = {i: parse_pattern(entries[i]["pattern"]) for i in usable}
    for i in usable:
        x = entries[i]
        key = (shape_of(x["pattern"]), x["check_key"])
        for t in x["targets"]:
            if (t, key) in first:
                j = first[(t, key)]
                out.setdefault(i, (j, f"#{j} has the same tree (up to argument names) and check"))
            else:
                first[(t, key)] = i
        if i in out:
            continue
        for j in usable:
            if j >= i or not set(entries[j]["targets"]) & set(x["targets"]):
                continue
            implied = CHECK_IMPLIES.get((x["check_key"], entries[j]["check_key"]))
            bound = {}
            if implied and covers(trees[j], trees[i], bound) and implied[0](bound):
                out[i] = (j, f"#{j}'s tree matches every graph this one's does, and this entry's check implies "
                             f"#{j}'s ({implied[1]})")
                break
    return out


def status(n, x, joint_index=None, covered_by=None, fired=True):
    if joint_index in PORTED_JOINT_INDEX:
        return PORTED_JOINT_INDEX[joint_index]
    if covered_by is not None:
        j, why = covered_by
        ported = f" (#{j} is ported)" if j in PORTED_JOINT_INDEX else ""
        return f"needs no port: {why}, and #{j} comes first, so this entry never fires{ported}"
    if n in PORTED:
        return PORTED[n]
    if x["kind"] == "LoweringPatternEntry":
        return "left out: a lowering pattern (emits Inductor IR, not a graph rewrite)"
    if n.startswith("_sfdp_pattern_") and x["pattern"].startswith("MultiOutputPattern"):
        if not fired:
            return ("not yet: SDPA training form that no oracle graph fires (its module reaches the pass in "
                    "another form, or an earlier entry takes it): needs a graph that makes Inductor fire it")
        what = ("with dropout, which Inductor replaces by its traced math decomposition (the mask from rand "
                "and gt, the softmax and its backward spelled out)" if "aten.rand" in x["pattern"] else
                "(the attention and the gradients; Inductor replaces it by the traced joint of the fused kernel)")
        return (f"not yet: SDPA training form {what}; waits for compile-time room in the port's translation "
                "unit (RESULTS.md, \"The port's compile time\")")
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
    # training.json (when shipped): the training forms' joint graphs, through the same pass
    training = os.path.join(d, "training.json")
    if os.path.exists(training):
        for g, rec in json.load(open(training))["graphs"].items():
            for name, c in rec.get("per_entry", {}).items():
                fired_joint[name].append(f"{g}{'*' if rec.get('changed') else ''} ({c})")
    # joint.json's "early" and "later" records: the joint pass's early_patterns and
    # pass_patterns[1:], run by the same process as its per_entry (same @ids).
    fired_other = {k: collections.defaultdict(list) for k in ("early", "later")}
    for g, rec in joint.items():
        for k, fired in fired_other.items():
            r = rec.get(k, {})
            for name, c in r.get("per_entry", {}).items():
                fired[name].append(f"{g}{'*' if r.get('changed') else ''} ({c})")
    for g, rec in post.items():
        for p in rec.get("passes", []):
            for name, c in p.get("per_entry", {}).items():
                # postgrad.json comes from another process: its @ids differ, match by name
                fired_post[short(name)].append(f"{g}{'*' if rec.get('changed') else ''} ({c})")
    print(f"# Inductor's pattern entries (torch {e['torch']})\n")
    print("Every entry of `joint_graph.patterns` after `lazy_init()`, of the joint pass's `early_patterns`")
    print("(run before it) and `pass_patterns[1]` (run after it), and of `post_grad.pass_patterns[i]`,")
    print("as `tools/oracle/inductor_oracle.py` lists them (`tests/data/inductor/entries.json`).")
    print("*Fired on*: the oracle graphs whose run called the entry's handler, with the count;")
    print("`*` marks a graph the pass changed. Generated by `tools/oracle/entry_table.py`.\n")
    sections = ([("joint_graph.patterns", e["joint"])] +
                [("joint_graph.early_patterns", e.get("joint_early", []))] +
                [(f"joint_graph.pass_patterns[{i + 1}]", p) for i, p in enumerate(e.get("joint_later", []))] +
                [(f"post_grad.pass_patterns[{i}]", p) for i, p in enumerate(e["post_grad"])])
    for title, entries in sections:
        print(f"## {title} ({len(entries)} entries)\n")
        if not entries:
            print("(empty at this torch version)\n")
            continue
        print("| # | entry | kind | target op | source | extra check | fired on | ported |")
        print("|---|---|---|---|---|---|---|---|")
        fired = (fired_joint if title == "joint_graph.patterns" else fired_other["early"] if "early" in title
                 else fired_other["later"] if title.startswith("joint_graph.pass_patterns") else fired_post)
        covered = covering_entries(entries) if title == "joint_graph.patterns" else {}
        for i, x in enumerate(entries):
            n = short(x["name"])
            f = "; ".join((fired.get(x["name"]) or fired.get(n) or [])[:4]) or "—"
            if i in covered and f != "—":
                sys.exit(f"entry {i} fired ({f}) though #{covered[i][0]} covers it: covering_entries is wrong")
            print(f"| {i} | `{n.split(':')[0]}` | {x['kind']} | {targets(x['targets'])} | {x['source'] or '—'} | "
                  f"{x['check']} | {f} | {status(n, x, i if title == 'joint_graph.patterns' else None, covered.get(i), f != '—')} |")
        print()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/inductor")
