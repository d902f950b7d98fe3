"""The house's rules, checked on the code as it stands (docs/architecture.md, "The
packages"):

- the harness and the reports name no backend: every backend name they need is a fact or
  a role a backend declares, read from harness.registry (the configuration tables, the
  profiles, the targets and the gate's cases, aside);
- no import cycle among the project's modules;
- a function imports inside itself only what is optional (a tool that may be missing),
  never a module of the project.
"""

import ast
import sys
from pathlib import Path

from harness import registry
from kernels import variational

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("kernels", "adapters", "harness", "reports")
#: configuration by nature: which sizes a sweep runs, which ratios the project is held
#: to, what the regression gate measures
CONFIGURATION = ("harness/profiles.py", "harness/targets.py", "harness/gate/cases.py")
#: the gate's cases run inside the revision under test (harness/gate/probe.py), which may
#: be an older one: each reaches the revision's modules when it runs, never at import
IMPORTED_LATE = ("harness.gate.cases",)


def _sources(*packages):
    for package in packages:
        yield from sorted((ROOT / package).rglob("*.py"))


def _docstrings(tree):
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def backend_names():
    """Every backend name the registries know (simulators, AD, circuit gradients)."""
    names = set(registry.simulators()) | set(registry.ad())
    names |= {m.name for m in variational.METHODS}
    return names


#: Constants whose word a backend's name shares but that name something else, each
#: declared once: (module, constant name). The report's field for the MPI a job ran on is
#: "mpi", as the distributed backend is; a stored run's field for where it was read from
#: is "source", as the source engine is.
FIELDS = {("harness/settings.py", "MPI_FIELD"), ("harness/store/schema.py", "SOURCE_FIELD")}
#: the store's migrations: each states a schema as it was when written, never today's
#: constants, and names its columns as they were
MIGRATIONS = "harness/store/migrations/versions/"


def _fields(tree, path):
    """The ids of the values of the FIELDS declared in ``path``."""
    return {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name)
            and (path, target.id) in FIELDS}


def named_backends(path, names, relative=None):
    """[(line, name)] of the string constants in ``path`` equal to a backend name,
    docstrings and the FIELDS aside."""
    tree = ast.parse(path.read_text())
    skip = _docstrings(tree) | _fields(tree, relative)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in skip and node.value in names]


def test_no_backend_is_named_in_the_harness_or_the_reports():
    names = backend_names()
    assert {"stride", "fused", "qulacs", "manual", "reverse", "adjoint"} <= names
    found = [f"{path.relative_to(ROOT)}:{line}: {name!r}"
             for path in _sources("harness", "reports")
             if str(path.relative_to(ROOT)) not in CONFIGURATION
             and not str(path.relative_to(ROOT)).startswith(MIGRATIONS)
             for line, name in named_backends(path, names, str(path.relative_to(ROOT)))]
    assert not found, "backends named in code (declare a fact or a role instead):\n" + \
        "\n".join(found)


def test_the_check_finds_a_named_backend(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('"""A docstring may say stride."""\nBASELINE = "stride"\n'
                   'MPI_FIELD = "mpi"\n')
    # a field is exempt only where it is declared
    assert named_backends(bad, backend_names()) == [(2, "stride"), (3, "mpi")]
    assert named_backends(bad, backend_names(), "harness/settings.py") == [(2, "stride")]


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module, node):
    """The project modules an import statement in ``module`` names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    package = module.rsplit(".", 1)[0] if not _is_package(module) else module
    if node.level:
        base = package.split(".")
        base = base[:len(base) - (node.level - 1)]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    out = [prefix]
    out += [f"{prefix}.{alias.name}" for alias in node.names]
    return out


def _is_package(module):
    return (ROOT / module.replace(".", "/") / "__init__.py").exists()


def import_graph():
    """({module: {project modules it imports when it is imported}}, {module: [(line,
    module)] a function of it imports when called})."""
    modules = {_module_name(p): p for p in _sources(*PACKAGES)}
    graph, local = {}, {}
    for module, path in modules.items():
        top, inner = set(), []

        def walk(node, in_function, module=module, top=top, inner=inner):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    walk(child, True)
                elif isinstance(child, (ast.Import, ast.ImportFrom)):
                    found = [t for t in _resolve(module, child) if t in modules]
                    if in_function:
                        inner.extend((child.lineno, t) for t in found)
                    else:
                        top.update(found)
                else:
                    walk(child, in_function)
        walk(ast.parse(path.read_text()), False)
        graph[module] = top - {module}
        if inner:
            local[module] = sorted(set(inner))
    return graph, local


def cycles(graph):
    """Every strongly connected set of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))
    for v in graph:
        if v not in index:
            visit(v)
    return out


def _package_edges(graph):
    """A package's ``__init__`` imports its own modules; a module importing its package's
    ``__init__`` back is the one cycle Python resolves by design (the package is already
    in sys.modules): leave those edges out."""
    return {m: {t for t in targets if not (m.startswith(t + ".") and _is_package(t))}
            for m, targets in graph.items()}


def test_no_import_cycles():
    graph, _ = import_graph()
    found = cycles(_package_edges(graph))
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_cycle_check_finds_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_functions_import_only_optional_dependencies():
    _, local = import_graph()
    found = [f"{module}:{line}: {target}" for module, items in local.items()
             if module not in IMPORTED_LATE for line, target in items]
    assert not found, ("modules of the project imported inside a function (import them "
                       "at the top; only an optional tool may be imported late):\n"
                       + "\n".join(found))
