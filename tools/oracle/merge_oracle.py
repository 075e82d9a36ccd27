"""Adds what a later oracle run (inductor_oracle.py --only ..., into its own --out) found to the
oracle in tests/data/inductor:

    python3 tools/oracle/merge_oracle.py NEW_DIR [tests/data/inductor]

- joint.json: the new run's graph records are added (a graph of the same name is replaced),
  their per-entry keys (and those of their "early" and "later" records) renamed to the
  entries.json names of the same positions (an entry's @id differs between runs, and several
  forms of an SDPA pattern share its name).
- joint/NAME.*: the new run's files are copied.
- training.json, training/NAME.* (a --passes training run): the same, into the oracle's own
  training.json (made when missing).
- entries.json: each joint entry gets the new run's full pattern text, check_key and code, matched by
  position (the registration order is torch's own, the same in every run); the names must agree
  up to their @id, or nothing is written.
"""
import json, os, shutil, sys


def short(name):
    return name.split("@")[0]


def main(new, old):
    ne, oe = (json.load(open(os.path.join(d, "entries.json"))) for d in (new, old))
    if ne["torch"] != oe["torch"]:
        sys.exit(f"torch {ne['torch']} (new run) is not {oe['torch']}: run the oracle again in full")
    if [short(x["name"]) for x in ne["joint"]] != [short(x["name"]) for x in oe["joint"]]:
        sys.exit("the joint entries differ between the runs: run the oracle again in full")
    renamed = {n["name"]: o["name"] for o, n in zip(oe["joint"], ne["joint"])}
    renamed_other = {"early": {n["name"]: o["name"] for o, n in zip(oe.get("joint_early", []), ne.get("joint_early", []))},
                     "later": {n["name"]: o["name"] for op, np in zip(oe.get("joint_later", []), ne.get("joint_later", []))
                               for o, n in zip(op, np)}}
    for o, n in zip(oe["joint"], ne["joint"]):
        o["pattern"] = n["pattern"]
        for k in ("check_key", "code"):
            if k in n:
                o[k] = n[k]
    added = 0
    for run in ("joint", "training"):
        if not os.path.exists(os.path.join(new, run + ".json")):
            continue
        nj = json.load(open(os.path.join(new, run + ".json")))["graphs"]
        path = os.path.join(old, run + ".json")
        oj = json.load(open(path)) if os.path.exists(path) else {"torch": ne["torch"], "graphs": {}}
        os.makedirs(os.path.join(old, run), exist_ok=True)
        for g, rec in nj.items():
            if "per_entry" in rec:
                rec["per_entry"] = {renamed.get(k, k): c for k, c in rec["per_entry"].items()}
            for key, names in renamed_other.items():
                if "per_entry" in rec.get(key, {}):
                    rec[key]["per_entry"] = {names.get(k, k): c for k, c in rec[key]["per_entry"].items()}
            oj["graphs"][g] = rec
            for f in os.listdir(os.path.join(new, run)):
                if f.startswith(g + "."):
                    shutil.copyfile(os.path.join(new, run, f), os.path.join(old, run, f))
        json.dump(oj, open(path, "w"), indent=1)
        added += len(nj)
    json.dump(oe, open(os.path.join(old, "entries.json"), "w"), indent=1)
    print(f"{added} graphs added or replaced; {len(oe['joint'])} joint entries updated")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "tests/data/inductor")
