"""Public API files for scripts/api-check.sh, from swift-api-digester's -dump-sdk output.

  api_dump.py prune RAW OUT [GRAPHS]
                                  keeps the public declarations of RAW (drops `package` ones, marked isInternal by the
                                  digester, and imports), sorted so that the file changes only when the API does; with
                                  GRAPHS, a folder of swift-symbolgraph-extract output, each declaration gets its text
                                  as the compiler prints it (default values, global actors and attribute arguments,
                                  which the digester leaves out)
  api_dump.py compare OLD NEW     prints the added, removed and changed declarations; exits 1 when there are any
  api_dump.py constants FOLDER    prints the values of the public constants declared in one line under FOLDER
  api_dump.py --self-test         checks pruning and comparison on made-up declarations (a suite test runs it)
"""
import glob
import json
import os
import re
import sys


# Facts of where a declaration is written, not of what it promises: a member moved into an extension is the same API.
SOURCE_ONLY = ("children", "tool_arguments", "isFromExtension")


def declaration_texts(folder):
    """{USR: declaration as printed} from the symbol graphs in `folder`."""
    texts = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.symbols.json"))):
        with open(path) as file:
            for symbol in json.load(file).get("symbols", []):
                fragments = symbol.get("declarationFragments")
                if fragments:
                    texts[symbol["identifier"]["precise"]] = "".join(f["spelling"] for f in fragments)
    return texts


def prune(node, texts=None):
    texts = texts or {}
    children = []
    for child in node.get("children", []):
        if child.get("isInternal") or child.get("kind") == "Import":
            continue
        children.append(prune(child, texts))
    pruned = {key: value for key, value in node.items() if key not in SOURCE_ONLY}
    if node.get("usr") in texts and node.get("kind") not in ("TypeNominal", "TypeFunc", "TypeNameAlias"):
        pruned["declaration"] = texts[node["usr"]]
    # Attributes and conformances come in source order; sorted, a reordering changes nothing.
    if "declAttributes" in pruned:
        pruned["declAttributes"] = sorted(pruned["declAttributes"])
    if "conformances" in pruned:
        pruned["conformances"] = sorted(pruned["conformances"], key=lambda c: c.get("usr", c.get("printedName", "")))
    if "accessors" in pruned:
        pruned["accessors"] = sorted(
            (prune(accessor) for accessor in pruned["accessors"]), key=lambda a: a.get("accessorKind", ""))
    if children:
        # Declarations sorted by USR: the digester's order follows the source files, which a move would change.
        declarations = [c for c in children if "usr" in c and c.get("kind") not in ("TypeNominal", "TypeFunc")]
        others = [c for c in children if c not in declarations]
        pruned["children"] = others + sorted(declarations, key=lambda c: (c["usr"], c.get("kind", "")))
    return pruned


def type_text(node):
    """A type as a declaration uses it: its spelling, and for a parameter whether it has a default, its ownership
    and attributes (`inout`, `@escaping`, `@Sendable`...)."""
    text = node.get("printedName", "")
    if node.get("hasDefaultArg"):
        text += " = default"
    for key in ("paramValueOwnership", "typeAttributes"):
        if key in node:
            text += f" {key}={node[key]}"
    return text


def signature(node):
    """What a declaration promises: its kind, name, attributes, the types it mentions in order (with defaults and
    ownership) and its accessors (a setter added or removed)."""
    facts = [node.get("kind", ""), node.get("printedName", "")]
    if "declaration" in node:
        facts.append("declared as: " + node["declaration"])
    facts += sorted(node.get("declAttributes", []))
    for key in ("static", "throwing", "isLet", "funcSelfKind", "genericSig", "sugared_genericSig", "init_kind",
                "isEnumExhaustive", "protocolReq", "enumRawTypeName", "hasMissingDesignatedInitializers"):
        if key in node:
            facts.append(f"{key}={node[key]}")
    if "conformances" in node:
        facts.append("conformances=" + ",".join(sorted(c.get("printedName", "") for c in node["conformances"])))
    for child in node.get("children", []):
        if child.get("kind", "").startswith("Type"):
            facts.append(type_text(child))
    for accessor in sorted(node.get("accessors", []), key=lambda a: a.get("accessorKind", "")):
        facts.append("accessor " + accessor.get("accessorKind", accessor.get("name", "")))
    return " | ".join(str(fact) for fact in facts)


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


CONSTANT = re.compile(r"^\s*public static let ([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*[^=]+?)?\s*=\s*(.+?)\s*$")


def constants(folder):
    """The values of the public constants declared in one line under `folder` (`public static let name = value`):
    documented numbers such as StreamedBody.defaultHighWater are API, and the declarations' dump has no values.
    Each as `file: name = value`, sorted, the file relative to `folder`."""
    found = []
    for directory, _, names in os.walk(folder):
        for name in sorted(names):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as source:
                for line in source:
                    match = CONSTANT.match(line)
                    # A value that goes on to the next line (a closure, a literal split over lines) is left out.
                    if match and not match.group(2).endswith(("{", "[", "(", ",")):
                        found.append(f"{os.path.relpath(path, folder)}: {match.group(1)} = {match.group(2)}")
    return sorted(found)


def compare(old, new):
    """The added, removed and changed declarations between two `declarations()` maps, each a sorted list of text."""
    added_keys, removed_keys = new.keys() - old.keys(), old.keys() - new.keys()
    # A declaration whose type changed (throws, async, a parameter's type) has a new USR under the same path: one
    # change, shown with both declarations. Overloads share a path, so each added declaration pairs with one removed
    # at its path, in order, and the removals left over are reported, every one.
    removed_by_path = {}
    for key in sorted(removed_keys, key=lambda k: old[k][1]):
        removed_by_path.setdefault(old[key][0], []).append(key)
    retyped = []
    for key in sorted(added_keys, key=lambda k: (new[k][0], new[k][1])):
        path = new[key][0]
        if removed_by_path.get(path):
            was = old[removed_by_path[path].pop(0)][1]
            retyped.append(f"{path}\n      was: {was}\n      now: {new[key][1]}")
            added_keys = added_keys - {key}
    removed_keys = {key for keys in removed_by_path.values() for key in keys}
    added = sorted(new[k][0] for k in added_keys)
    removed = sorted(old[k][0] for k in removed_keys)
    changed = sorted(retyped + [
        f"{new[k][0]}\n      was: {old[k][1]}\n      now: {new[k][1]}"
        for k in new.keys() & old.keys() if new[k][1] != old[k][1]])
    return added, removed, changed


def self_test():
    """Pruning and comparison on made-up digester output: what a change of this script must not break."""
    def declaration(name, usr, text, **facts):
        return {"kind": "Var", "name": name, "printedName": name, "usr": usr, **facts,
                "children": [{"kind": "TypeNominal", "name": "Int", "printedName": "Swift.Int", "usr": "s:Si"}]}

    def root(*declarations):
        return {"kind": "Root", "name": "M", "printedName": "M", "children": [
            {"kind": "TypeDecl", "name": "T", "printedName": "T", "usr": "s:1M1TV", "children": list(declarations)}]}

    texts = {"s:a": "var a: Int", "s:b": "var b: Int = 1"}
    base = prune(root(declaration("a", "s:a", ""), declaration("b", "s:b", "")), texts)
    failures = []
    moved = prune(root(declaration("b", "s:b", "", isFromExtension=True), declaration("a", "s:a", "")), texts)
    if moved != base:
        failures.append("moving a member into an extension, or reordering, changed the pruned API")
    hidden = prune(root(declaration("a", "s:a", ""), declaration("b", "s:b", ""),
                        declaration("p", "s:p", "", isInternal=True)), texts)
    if hidden != base:
        failures.append("a package declaration reached the pruned API")
    old, new = declarations(base), declarations(prune(root(declaration("a", "s:a", ""), declaration("b", "s:b", "")),
                                                       {**texts, "s:b": "var b: Int = 2"}))
    if old == new or old.keys() != new.keys():
        failures.append("a changed default value was not a change of the same declaration")
    renamed = declarations(prune(root(declaration("a", "s:a", ""), declaration("c", "s:c", "")), texts))
    if "s:b#Var" not in old.keys() - renamed.keys() or "s:c#Var" not in renamed.keys() - old.keys():
        failures.append("a rename was not a removal and an addition")
    # Two overloads at one path removed and one added: one change and one removal, neither lost.
    overloads = {"s:f1#Func": ("T.f(_:)", "Func | f(_:) | Swift.Int"), "s:f2#Func": ("T.f(_:)", "Func | f(_:) | Swift.String")}
    one = {"s:f3#Func": ("T.f(_:)", "Func | f(_:) | Swift.Double")}
    added, removed, changed = compare(overloads, one)
    if added or removed != ["T.f(_:)"] or len(changed) != 1:
        failures.append(f"two overloads removed at one path, one added, read as {added}, {removed}, {changed}")
    added, removed, changed = compare(overloads, {})
    if removed != ["T.f(_:)", "T.f(_:)"]:
        failures.append(f"two overloads removed were reported as {removed}")
    for line, expected in (("    public static let defaultHighWater = 1 << 20", ("defaultHighWater", "1 << 20")),
                           ("public static let maximumTimeout: TimeInterval = 7 * 24 * 3600",
                            ("maximumTimeout", "7 * 24 * 3600")),
                           ("    static let hidden = 1", None), ("    public let stored = 2", None)):
        match = CONSTANT.match(line)
        if (match.groups() if match else None) != expected:
            failures.append(f"the constant line {line.strip()!r} read as {match.groups() if match else None}")
    for failure in failures:
        print(f"api_dump self-test: FAIL {failure}")
    print("api_dump self-test: " + ("failed" if failures else "ok"))
    return 1 if failures else 0


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "--self-test":
        return self_test()
    if command == "prune" and len(sys.argv) in (4, 5):
        with open(sys.argv[2]) as raw:
            root = json.load(raw)["ABIRoot"]
        texts = declaration_texts(sys.argv[4]) if len(sys.argv) == 5 else {}
        with open(sys.argv[3], "w") as out:
            json.dump({"ABIRoot": prune(root, texts)}, out, indent=1, sort_keys=True)
            out.write("\n")
        return 0
    if command == "constants" and len(sys.argv) == 3:
        print("\n".join(constants(sys.argv[2])))
        return 0
    if command == "compare" and len(sys.argv) == 4:
        with open(sys.argv[2]) as old_file, open(sys.argv[3]) as new_file:
            old = declarations(json.load(old_file)["ABIRoot"])
            new = declarations(json.load(new_file)["ABIRoot"])
        added, removed, changed = compare(old, new)
        for title, items in (("added", added), ("removed", removed), ("changed", changed)):
            for item in items:
                print(f"  {title}: {item}")
        return 1 if added or removed or changed else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
