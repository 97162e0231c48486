# Copies the packages an app needs from the build machine's site-packages into its venv, so the artifact
# (and its image) no longer depends on the machine's system packages. Runs with the venv's interpreter, in
# the build's sandbox. argv[1]: the requirements file pip installed from.
#
# Two ways in, because Debian's metadata leaves out dependencies (its uvicorn's requires.txt names neither
# click nor h11): the requirements' declared dependencies, and the modules that the app's own files and every
# copied file import (read with ast, not run), found on the machine's site-packages.
import ast
import compileall
import importlib.machinery
import importlib.metadata as md
import os
import shutil
import sys
import sysconfig

try:
    from pip._vendor.packaging.requirements import InvalidRequirement, Requirement
    from pip._vendor.packaging.utils import canonicalize_name
except ImportError:
    sys.exit("the venv has no pip: cannot work out which packages the app needs")

venv_site = os.path.realpath(sysconfig.get_paths()["purelib"])
system_sites = [p for p in sys.path if p and os.path.isdir(p) and os.path.realpath(p) != venv_site
                and os.path.basename(p) in ("site-packages", "dist-packages")]
SKIPPED_DIRS = {".venv", "node_modules", ".git", "__pycache__"}


def requirements(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split(" #", 1)[0].strip()
            if not line or line.startswith("#") or line.startswith("-"):
                continue
            try:
                out.append(Requirement(line))
            except InvalidRequirement:
                pass  # a URL or a path: pip installed it into the venv already
    return out


def wanted(req, extras):
    return req.marker is None or any(req.marker.evaluate({"extra": e}) for e in extras)


def inside(base, path):
    real = os.path.realpath(path)
    return real == base or real.startswith(base + os.sep)


def copy_entry(base, rel, copied):
    src = os.path.join(base, rel)
    dst = os.path.join(venv_site, rel)
    if not inside(base, src) or os.path.lexists(dst):
        return
    if os.path.isdir(src):
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    elif os.path.isfile(src):
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst)
    else:
        return
    copied.append(dst)


def copy_distribution(dist, copied):
    base = os.path.realpath(str(dist.locate_file("")))
    meta = getattr(dist, "_path", None)
    if meta is not None:
        copy_entry(base, os.path.relpath(os.path.realpath(str(meta)), base), copied)
    files = dist.files
    if files:
        for f in files:
            if f.parts and f.parts[0] != ".." and "__pycache__" not in f.parts:
                copy_entry(base, str(f), copied)
        return
    # an egg-info (most of Debian's): its top-level modules
    top = dist.read_text("top_level.txt") or dist.metadata["Name"].replace("-", "_")
    for name in top.split():
        copy_entry(base, name, copied)
        copy_entry(base, name + ".py", copied)
        for entry in os.listdir(base):
            if entry.startswith(name + ".") and entry.endswith(".so"):
                copy_entry(base, entry, copied)


def imported(path):
    """Top-level names of the absolute imports in one file; a file that does not parse imports nothing."""
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), filename=path)
    except (SyntaxError, ValueError, OSError, RecursionError):
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def python_files(path):
    if os.path.isfile(path):
        return [path] if path.endswith(".py") else []
    out = []
    for d, dirs, files in os.walk(path):
        dirs[:] = [x for x in dirs if x not in SKIPPED_DIRS]
        out.extend(os.path.join(d, f) for f in files if f.endswith(".py"))
    return out


def copy_module(name, owners, copied, bundled):
    """A top-level module that only the machine's site-packages have: its files and its distribution's metadata."""
    if importlib.machinery.PathFinder.find_spec(name, [venv_site]) is not None:
        return
    for site in system_sites:
        spec = importlib.machinery.PathFinder.find_spec(name, [site])
        if spec is None:
            continue
        base = os.path.realpath(site)
        if spec.submodule_search_locations:
            for location in spec.submodule_search_locations:
                copy_entry(base, os.path.relpath(location, base), copied)
        elif spec.origin and os.path.isfile(spec.origin):
            copy_entry(base, os.path.relpath(spec.origin, base), copied)
        for dist_name in owners.get(name, []):
            try:
                dist = md.distribution(dist_name)
            except md.PackageNotFoundError:
                continue
            meta = getattr(dist, "_path", None)
            if meta is not None and inside(base, str(meta)):
                copy_entry(base, os.path.relpath(os.path.realpath(str(meta)), base), copied)
                bundled.append(dist.metadata["Name"] + " " + dist.version)
        return


def main():
    todo = [(r, {""}) for r in requirements(sys.argv[1])]
    seen = set()
    bundled = []
    missing = []
    copied = []
    while todo:
        req, extras = todo.pop()
        if not wanted(req, extras):
            continue
        key = (canonicalize_name(req.name), frozenset(req.extras))
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = md.distribution(req.name)
        except md.PackageNotFoundError:
            missing.append(req.name)
            continue
        if not inside(venv_site, str(dist.locate_file(""))):
            copy_distribution(dist, copied)
            bundled.append(dist.metadata["Name"] + " " + dist.version)
        child_extras = {""} | set(req.extras)
        for line in dist.requires or []:
            try:
                todo.append((Requirement(line), child_extras))
            except InvalidRequirement:
                pass
    owners = md.packages_distributions()
    scanned = 0
    done_modules = set(sys.builtin_module_names) | set(sys.stdlib_module_names)
    queue = python_files(".")
    while scanned < len(copied) or queue:
        while scanned < len(copied):
            queue.extend(python_files(copied[scanned]))
            scanned += 1
        if not queue:
            break
        for name in imported(queue.pop()):
            if name in done_modules:
                continue
            done_modules.add(name)
            copy_module(name, owners, copied, bundled)
    for path in copied:
        if os.path.isdir(path):
            compileall.compile_dir(path, quiet=2)
        elif path.endswith(".py"):
            compileall.compile_file(path, quiet=2)
    if bundled:
        print("Copied into the venv from this machine: " + ", ".join(sorted(set(bundled), key=str.lower)))
    else:
        print("Every package the app needs is in its venv")
    if missing:
        print("Not installed anywhere (the app may not need them): " + ", ".join(sorted(set(missing))))


main()
