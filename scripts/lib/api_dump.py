"""Public API files for scripts/api-check.sh, from swift-api-digester's -dump-sdk output.

  api_dump.py prune RAW OUT       keeps the public declarations of RAW (drops `package` ones, marked isInternal by the
                                  digester, and imports), sorted so that the file changes only when the API does
  api_dump.py compare OLD NEW     prints the added, removed and changed declarations; exits 1 when there are any
"""
import json
import sys


def prune(node):
    children = []
    for child in node.get("children", []):
        if child.get("isInternal") or child.get("kind") == "Import":
            continue
        children.append(prune(child))
    pruned = {key: value for key, value in node.items() if key not in ("children", "tool_arguments")}
    if children:
        # Declarations sorted by USR: the digester's order follows the source files, which a move would change.
        declarations = [c for c in children if "usr" in c and c.get("kind") not in ("TypeNominal", "TypeFunc")]
        others = [c for c in children if c not in declarations]
        pruned["children"] = others + sorted(declarations, key=lambda c: (c["usr"], c.get("kind", "")))
    return pruned


def signature(node):
    """What a declaration promises: its kind, name, attributes and the types it mentions, in order."""
    types = []

    def collect(n):
        for child in n.get("children", []):
            if child.get("kind", "").startswith("Type"):
                types.append(child.get("printedName", ""))
            elif child.get("kind") == "Accessor":
                types.append("accessor " + child.get("accessorKind", child.get("name", "")))
    collect(node)
    facts = [node.get("kind", ""), node.get("printedName", "")]
    facts += sorted(node.get("declAttributes", []))
    for key in ("static", "throwing", "isLet", "isOpen", "mutating", "genericSig", "sugared_genericSig",
                "conformances", "funcSelfKind", "isEnumExhaustive", "hasMissingDesignatedInitializers"):
        if key in node:
            value = node[key]
            if key == "conformances":
                value = sorted(c.get("printedName", "") for c in value)
            facts.append(f"{key}={value}")
    return " | ".join(str(f) for f in facts + types)


def declarations(root):
    found = {}

    def walk(node, parents):
        name = node.get("printedName", node.get("name", ""))
        if "usr" in node and node.get("kind") not in ("TypeNominal", "TypeFunc", "Accessor", "TypeNameAlias"):
            path = ".".join(parents + [name])
            found[node["usr"] + "#" + node.get("kind", "")] = (path, signature(node))
            parents = parents + [name]
        for child in node.get("children", []):
            walk(child, parents)

    walk(root, [])
    return found


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "prune" and len(sys.argv) == 4:
        with open(sys.argv[2]) as raw:
            root = json.load(raw)["ABIRoot"]
        with open(sys.argv[3], "w") as out:
            json.dump({"ABIRoot": prune(root)}, out, indent=1, sort_keys=True)
            out.write("\n")
        return 0
    if command == "compare" and len(sys.argv) == 4:
        with open(sys.argv[2]) as old_file, open(sys.argv[3]) as new_file:
            old = declarations(json.load(old_file)["ABIRoot"])
            new = declarations(json.load(new_file)["ABIRoot"])
        added = sorted(new[k][0] for k in new.keys() - old.keys())
        removed = sorted(old[k][0] for k in old.keys() - new.keys())
        changed = sorted(
            f"{new[k][0]}\n      was: {old[k][1]}\n      now: {new[k][1]}"
            for k in new.keys() & old.keys() if new[k][1] != old[k][1])
        for title, items in (("added", added), ("removed", removed), ("changed", changed)):
            for item in items:
                print(f"  {title}: {item}")
        return 1 if added or removed or changed else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
