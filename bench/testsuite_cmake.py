"""The little of CMake that LLVM test-suite's MultiSource/Benchmarks
folders use to say how a program is built and run: set(), list(APPEND),
if()/elseif()/else()/endif() over the build's options, ${VAR} references,
llvm_multisource(NAME), llvm_test_data(NAME FILES...) and C_STANDARD.

The conditions are evaluated for this machine and a SMALL_PROBLEM_SIZE
build (or a default-size one with full=True): ARCH x86_64, TARGET_OS
Linux, LARGE_PROBLEM_SIZE off, every other unknown name off. A folder
whose CMakeLists.txt needs more than this is reported, not guessed.
"""
import os
import re
import shlex

from realprogs import cmake_commands


class Unsupported(Exception):
    pass


def _expand(text, env):
    return re.sub(r"\$\{(\w+)\}", lambda m: " ".join(env.get(m.group(1), [])),
                  text)


def _split(args):
    """CMake's arguments: a quoted argument loses its quotes; quotes inside
    an unquoted one stay (-DNAME="text" is a string macro)."""
    out = []
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)"|(\S+)', args):
        out.append(m.group(1) if m.group(1) is not None else m.group(2))
    return out


def _truth(word, env):
    if word.upper() in ("ON", "YES", "TRUE", "1"):
        return True
    if word.upper() in ("OFF", "NO", "FALSE", "0", ""):
        return False
    v = env.get(word)
    return bool(v) and v[0].upper() not in ("OFF", "NO", "FALSE", "0", "")


def _cond(text, env):
    """An if() condition: NOT, AND, OR, parentheses, STREQUAL, DEFINED and
    names, as far as these files use them."""
    toks = re.findall(r'\(|\)|"[^"]*"|[^\s()]+', _expand(text, env))
    pos = 0

    def peek():
        return toks[pos] if pos < len(toks) else None

    def take():
        nonlocal pos
        pos += 1
        return toks[pos - 1]

    def value(t):
        t = t.strip('"')
        return " ".join(env[t]) if t in env else t

    def atom():
        t = take()
        if t == "(":
            v = disj()
            if take() != ")":
                raise Unsupported(f"if({text})")
            return v
        if t == "NOT":
            return not atom()
        if t == "DEFINED":
            return take() in env
        if peek() in ("STREQUAL", "EQUAL", "MATCHES"):
            op, rhs = take(), take()
            if op == "MATCHES":
                return re.search(rhs.strip('"'), value(t)) is not None
            return value(t) == value(rhs)
        return _truth(t.strip('"'), env)

    def conj():
        v = atom()
        while peek() == "AND":
            take()
            v = atom() and v
        return v

    def disj():
        v = conj()
        while peek() == "OR":
            take()
            v = conj() or v
        return v

    v = disj()
    if pos != len(toks):
        raise Unsupported(f"if({text})")
    return v


def read_multisource(folder, full=False):
    """The program a MultiSource folder builds: dict with name, srcs,
    cflags, args, stdin, data (files to copy beside the run); or None
    when the folder builds none (C++ or no llvm_multisource)."""
    with open(os.path.join(folder, "CMakeLists.txt")) as f:
        cmds = cmake_commands(f.read())
    env = {"ARCH": ["x86_64"], "TARGET_OS": ["Linux"],
           "CMAKE_SYSTEM_NAME": ["Linux"],
           "SMALL_PROBLEM_SIZE": [] if full else ["ON"],
           "LARGE_PROBLEM_SIZE": [], "CMAKE_CURRENT_SOURCE_DIR": [folder]}
    stack = []  # per if(): [taking now, taken already]
    prog, data, std, sources = None, [], None, None
    for name, args in cmds:
        if name == "if":
            live = all(s[0] for s in stack)
            v = live and _cond(args, env)
            stack.append([v, v])
            continue
        if name in ("elseif", "else"):
            if not stack:
                raise Unsupported(name + "() outside if()")
            live = all(s[0] for s in stack[:-1])
            v = (not stack[-1][1] and live and
                 (name == "else" or _cond(args, env)))
            stack[-1] = [v, stack[-1][1] or v]
            continue
        if name == "endif":
            stack.pop()
            continue
        if not all(s[0] for s in stack):
            continue
        words = _split(_expand(args, env))
        if name == "set" and words:
            env[words[0]] = words[1:]
        elif name == "list" and len(words) >= 2 and words[0] == "APPEND":
            env.setdefault(words[1], []).extend(words[2:])
        elif name == "list" and len(words) >= 2 and words[0] == "REMOVE_ITEM":
            env[words[1]] = [w for w in env.get(words[1], [])
                             if w not in words[2:]]
        elif name == "add_definitions":
            env.setdefault("CPPFLAGS", []).extend(words)
        elif name == "llvm_multisource" and words:
            prog = words[0]
            sources = words[1:] or env.get("Source")
        elif name == "llvm_test_data" and words:
            data += [w for w in words[1:] if w not in ("SOURCE_DIR",
                                                       "MUST_COPY")]
        elif name == "set_property" and "C_STANDARD" in words:
            std = words[words.index("C_STANDARD") + 1]
        elif name in ("llvm_test_executable",
                      "llvm_test_run", "llvm_test_verify",
                      "add_executable", "llvm_add_subdirectories"):
            raise Unsupported(name + "()")
    if prog is None:
        return None
    files = sorted(os.listdir(folder))
    if any(f.endswith((".cpp", ".cc", ".cxx", ".C")) for f in files):
        return None
    srcs = sources if sources else [f for f in files if f.endswith(".c")]
    srcs = [s for s in srcs if s.endswith(".c")]
    if not srcs:
        return None
    cflags = env.get("CPPFLAGS", []) + env.get("CFLAGS", [])
    if std:
        cflags.append(f"-std=gnu{std}")  # CMake's default extensions ON
    ldflags = [w for w in env.get("LDFLAGS", []) if w != "-lm"]
    if ldflags:
        raise Unsupported("LDFLAGS " + " ".join(ldflags))
    words = env.get("RUN_OPTIONS", [])
    stdin = env.get("STDIN_FILENAME", [None])[0]
    if "<" in words:
        i = words.index("<")
        stdin, words = words[i + 1], words[:i] + words[i + 2:]
    if any(w in (">", "|", "2>") for w in words):
        raise Unsupported("RUN_OPTIONS with a redirection")
    return {"target": prog, "srcs": [os.path.join(folder, s) for s in srcs],
            "cflags": cflags, "args": words,
            "stdin": os.path.join(folder, stdin) if stdin else None,
            "data": data}
