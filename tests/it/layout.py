#!/usr/bin/env python3
"""The layout rules of a soak tree, for tests/it/test_layout.sh.

    layout.py ROOT...

Prints one line per place that breaks a rule (nothing when the tree keeps them all); with
several trees, each line after its tree's name and ": ".

  1. Includes run down the layers only:
       commands (soak/*.c) -> report/, run/, import/; report/ -> history/;
       report/, run/, import/, history/ -> store/ -> scenario/ -> engine/ -> common/
     A file in a folder of a folder (report/read/x.c) belongs to its top folder's layer.
     common/ uses no soak/ header, at any depth.  Only the commands include cmd.h.  A bare
     include names a header of common/ or of the file's own folder.
  2. One way within a folder: its modules (X.c uses Y when it includes Y.h or Y_int.h)
     form no circle of any length, and neither do its rooms (its folders, and its own
     files as one more room) through the headers they include from each other.  A .c
     file of the folder's own that includes a room's header counts as a room of its own:
     nothing includes a .c file, so it closes no circle (report_load.c composes reading
     and judging), while the folder's own headers, which every room includes, include no
     room's.
  3. Calls go through the callee's own header: a header X.h declares only functions that
     X.c defines; X_int.h, an internal header, may declare those of any file of its own
     folder, and only its own folder and the folder's rooms include it.  A .c file declares
     no function but its own static ones.  The few headers allowed otherwise are in
     ALLOWED, with the reason.
  4. A folder with rooms (report/: read/, judge/, write/; history/: write/) is entered
     through its front:
     from outside the folder, only the headers at its top that are not internal are
     included, never a room's; a front header (L/L.h) may declare functions its rooms or
     its top's files define, but only those that a file outside the folder calls.

  5. Calls between the rooms of a folder run one way too (ROOM_CALLS): in report/, read/
     and judge/ call no other room (read/ reads, judge/ returns what it found as data),
     write/ may call judge/ and read/ (it words what they found); every room may call
     its folder's top (the model, the sentence buffer).  What must be
     judged while the runs are read (a drift window's parts, a source's memory) is handed
     to read/ by the top as functions to call (struct rpt_read_judges), so read/ names
     none of judge/'s.  BACK_CALLS, empty now, is where a call that must still run back
     would go, with the reason.

Reads C as text: comments, strings, preprocessor lines and attributes are dropped, then
the declarations and definitions at file scope (brace depth 0) are taken apart.  Fits the
tree's clang-formatted C; it is not a C parser.
  6. Every C file of soak/, common/, collectors/ and targets/ opens with a comment of at
     least two lines: what it owns, and what it must keep true (redis's and SQLite's habit).
"""
import os
import re
import sys

# What each soak/ folder may include from, besides itself and common/ ("" = the commands).
LAYERS = {
    "engine": set(),
    "scenario": {"engine"},
    "store": {"scenario", "engine"},
    "run": {"store", "scenario", "engine"},
    "history": {"store", "scenario", "engine"},
    "report": {"history", "store", "scenario", "engine"},
    "import": {"store", "scenario", "engine"},
    "": {"report", "history", "run", "import", "store", "scenario", "engine"},
}

# Headers that may declare functions defined elsewhere, and why.  Shrink this list; never
# grow it without a reason a reader accepts.
ALLOWED = {
    # The commands' header (STYLE.md: one file per subcommand plus one dispatch table):
    # cmd_NAME is defined in cmd_NAME.c, cmd_usage in main.c beside the table, and the
    # few helpers two commands share in the command that owns them.
    "soak/cmd.h": lambda fn, c: c == "soak/main.c" or re.match(r"soak/cmd_\w+\.c$", c),
}

# Rule 5: per folder with rooms, the rooms each room may call.
ROOM_CALLS = {"report": {"read": set(), "judge": set(), "write": {"read", "judge"}}}

# Calls that still run back between rooms, and why (none now).  Keep this list empty;
# never grow it without a reason a reader accepts.
BACK_CALLS = {}

IDENT = re.compile(r"[A-Za-z_]\w*")
INCLUDE = re.compile(r'(?m)^#include "([^"]*)"')


LEXEMES = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def strip(text):
    """C text without comments, string and character literals, preprocessor lines and
    __attribute__((...)) lists."""
    text = re.sub(r"\\\n", " ", text)
    text = LEXEMES.sub(lambda m: {"/": " ", '"': '""', "'": "0"}[m.group(0)[0]], text)
    text = re.sub(r"(?m)^[ \t]*#.*$", " ", text)
    while True:  # __attribute__((...)), its parentheses nested
        m = re.search(r"__attribute__\s*\(", text)
        if not m:
            return text
        depth, j = 0, m.end() - 1
        while j < len(text):
            depth += text[j] == "("
            depth -= text[j] == ")"
            j += 1
            if depth == 0:
                break
        text = text[: m.start()] + " " + text[j:]


def top_level(text):
    """(head, kind) of each file-scope item: kind ';' for a declaration, '{' for what has
    a body (a definition, a type, an initializer); head is what comes before it."""
    items, start, depth = [], 0, 0
    for m in re.finditer(r"[{};]", text):
        i, c = m.start(), m.group(0)
        if c == "{":
            if depth == 0:
                items.append((text[start:i], "{"))
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                start = i + 1
        elif c == ";" and depth == 0:
            items.append((text[start:i], ";"))
            start = i + 1
    return items


def function(head):
    """(name, is_static) when head declares or defines a function, else None."""
    head = head.strip()
    if not head or "(" not in head or head.startswith("typedef") or head.endswith("="):
        return None
    k = head.index("(")
    before = head[:k].rstrip()
    if before.endswith(("*", "(")):
        return None  # a pointer to a function: a variable
    m = re.search(r"([A-Za-z_]\w*)$", before)
    words = IDENT.findall(before)
    if not m or len(words) < 2 or words[0] in ("return", "sizeof"):
        return None  # a call or a macro's use, not a declaration
    depth = 0
    for j in range(k, len(head)):  # a declarator ends with its parameter list's ')'
        depth += head[j] == "("
        depth -= head[j] == ")"
        if depth == 0:
            if head[j + 1 :].strip():
                return None
            break
    return m.group(1), "static" in words


def circle(edges):
    """The nodes of a circle in the graph {a: {b, ...}}, or None."""
    state, path = {}, []

    def visit(a):
        state[a] = 1
        path.append(a)
        for b in sorted(edges.get(a, ())):
            if state.get(b) == 1:
                return path[path.index(b) :]
            if b not in state:
                found = visit(b)
                if found:
                    return found
        state[a] = 2
        path.pop()
        return None

    for a in sorted(edges):
        if a not in state:
            found = visit(a)
            if found:
                return found
    return None


def sources(top, sub):
    """Paths relative to top of the .c and .h files under top/sub, at any depth."""
    out = []
    for d, _, files in os.walk(os.path.join(top, sub)):
        out += [os.path.relpath(os.path.join(d, f), top) for f in files if f.endswith((".c", ".h"))]
    return sorted(out)


def has_rooms(top, layer):
    """Whether soak/LAYER holds folders of its own (rooms) with C in them."""
    d = os.path.join(top, "soak", layer)
    return os.path.isdir(d) and any(
        os.path.isdir(os.path.join(d, x)) and sources(top, f"soak/{layer}/{x}")
        for x in os.listdir(d))


def is_front(top, f):
    """Whether header f is the front of a folder with rooms: soak/L/L.h."""
    parts = f.split("/")
    return (len(parts) == 3 and parts[0] == "soak" and parts[2] == parts[1] + ".h"
            and has_rooms(top, parts[1]))


def check(top):
    out = []
    files = sources(top, "soak") + sources(top, "common")
    text = {}
    for f in files:
        with open(os.path.join(top, f), errors="replace") as fh:
            text[f] = fh.read()
    rooms = {}  # top folder -> {room: {room, ...}}
    modules = {}  # folder -> {module: {module, ...}}

    # 1 and 2: the includes.
    for f in files:
        parts = f.split("/")
        folder = os.path.dirname(f)
        if parts[0] == "soak":
            layer = parts[1] if len(parts) > 2 else ""
            room = "/".join(parts[2:-1]) if len(parts) > 2 else ""
        else:
            layer, room = "common", "/".join(parts[1:-1])
        for inc in INCLUDE.findall(text[f]):
            head = inc.split("/")
            if len(head) == 1:
                if inc == "cmd.h" and layer != "":
                    out.append(f"{f} includes cmd.h (only the commands may)")
                elif not (os.path.isfile(os.path.join(top, "common", inc)) or
                          os.path.isfile(os.path.join(top, folder, inc))):
                    out.append(f'{f} includes "{inc}", neither in common/ nor in its own folder')
                elif f.endswith(".c") and os.path.isfile(os.path.join(top, folder, inc)):
                    m = os.path.basename(f)[:-2]
                    h = re.sub(r"(_int)?\.h$", "", inc)
                    if h != m:
                        modules.setdefault(folder, {}).setdefault(m, set()).add(h)
                continue
            if layer == "common":
                if head[0] in LAYERS and head[0]:
                    out.append(f"{f} (common/) includes a soak/ header")
                elif os.path.isdir(os.path.join(top, "common", *head[:-1])):
                    to = "/".join(head[:-1])
                    if to != room:
                        rooms.setdefault("common", {}).setdefault(room, set()).add(to)
                continue
            to = head[0]
            if to == layer:
                sub = "/".join(head[1:-1])
                if sub != room:
                    node = os.path.basename(f) if not room and f.endswith(".c") else room
                    rooms.setdefault(layer, {}).setdefault(node, set()).add(sub)
                    # An internal header of the folder's top serves its rooms too.
                    if inc.endswith("_int.h") and not (sub == "" and room):
                        out.append(f"{f} includes {inc} (an internal header of another folder)")
                continue
            if to not in LAYERS[layer]:
                out.append(f"{f} includes {inc} ({layer or 'soak'}/ may not use {to}/)")
            if inc.endswith("_int.h"):
                out.append(f"{f} includes {inc} (an internal header of another folder)")
            elif len(head) > 2 and has_rooms(top, to):
                out.append(f"{f} includes {inc} (a room's header: outside {to}/, only its front)")
    for layer, g in sorted(rooms.items()):
        c = circle(g)
        if c:
            names = " ".join(r or "." for r in c)
            out.append(f"{layer}/'s rooms include each other: a circle: {names}")
    for folder, g in sorted(modules.items()):
        c = circle(g)
        if c:
            out.append(f"{folder}/: modules include each other: a circle: {' '.join(c)}")

    # 3 and 4: the declarations.
    decls, defs = {}, {}
    plain = {f: strip(text[f]) for f in files}
    for f in files:
        for head, kind in top_level(plain[f]):
            fn = function(head)
            if fn:
                (decls if kind == ";" else defs).setdefault(f, []).append(fn)
    where = {}
    for c, fns in defs.items():
        for name, static in fns:
            if not static:
                where.setdefault(name, []).append(c)
    for f in sorted(decls):
        for name, static in decls[f]:
            if f.endswith(".c"):
                if not static:
                    out.append(f"{f} declares {name}(), not a static function of its own")
                continue
            home = where.get(name, [])
            if static or f[:-2] + ".c" in home:
                continue
            if f.endswith("_int.h") and any(os.path.dirname(c) == os.path.dirname(f) for c in home):
                continue
            front = os.path.dirname(f)
            if is_front(top, f) and any(os.path.dirname(c) == front or
                                        os.path.dirname(c).startswith(front + "/") for c in home):
                if not any(not g.startswith(front + "/") and re.search(rf"\b{name}\b", plain[g])
                           for g in files):
                    out.append(f"{f} declares {name}(), which nothing outside {front}/ calls "
                               "(a front declares only what the rest of soak uses)")
                continue
            if f in ALLOWED and any(ALLOWED[f](name, c) for c in home):
                continue
            out.append(f"{f} declares {name}() of {', '.join(home) or 'no file'}")

    # 5: the calls between rooms.
    def room_of(f):
        parts = f.split("/")
        return (parts[1], parts[2]) if parts[0] == "soak" and len(parts) > 3 else (None, None)

    for f in files:
        layer, room = room_of(f)
        if not f.endswith(".c") or layer not in ROOM_CALLS or room not in ROOM_CALLS[layer]:
            continue
        own = {name for name, _ in defs.get(f, [])}
        seen = set()
        for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", plain[f]):
            name = m.group(1)
            if name in own or name in seen:
                continue
            for home in where.get(name, []):
                hl, hr = room_of(home)
                if (hl != layer or hr is None or hr == room or hr in ROOM_CALLS[layer][room]
                        or (f, name) in BACK_CALLS):
                    continue
                seen.add(name)
                out.append(f"{f} calls {name}() of {home} "
                           f"({layer}/{room}/ may not call {layer}/{hr}/)")
    return out


def head_comments(top):
    """Rule 6: the files whose first comment is missing or a single line."""
    out = []
    for sub in ("soak", "common", "collectors", "targets"):
        for f in sources(top, sub):
            with open(os.path.join(top, f), errors="replace") as fh:
                t = fh.read().lstrip()
            if not t.startswith("/*") or "*/" not in t:
                out.append(f"{f}: opens with no comment (what it owns, what it keeps true)")
            elif t[:t.index("*/")].count("\n") < 1:
                out.append(f"{f}: its opening comment is one line (say what it owns and "
                           "what it keeps true)")
    return out


if __name__ == "__main__":
    # layout.py ROOT: its lines.  layout.py ROOT... (several): each line after "ROOT: ".
    for root in sys.argv[1:]:
        for line in check(root) + head_comments(root):
            print(f"{root}: {line}" if len(sys.argv) > 2 else line)
