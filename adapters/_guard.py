"""The guarded import every adapter uses for its tool, so that a missing or broken tool
makes the adapter unavailable (with the reason) instead of breaking its import."""

import importlib
import importlib.metadata


def tool_version(module, dist=None):
    version = getattr(module, "__version__", None)
    if version is None:
        try:
            version = importlib.metadata.version(dist or module.__name__.partition(".")[0])
        except importlib.metadata.PackageNotFoundError:
            version = "(version unknown)"
    return str(version)


def guarded_import(name, *submodules):
    """Import the tool ``name`` (and ``name.sub`` for each of ``submodules``).

    Returns ``(module, available, reason)``: the module or None, whether it imported, and
    why not or else ``"<name> <version>"``. Never raises an Exception.
    """
    try:
        module = importlib.import_module(name)
        for sub in submodules:
            importlib.import_module(f"{name}.{sub}")
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            return None, False, f"{name} is not installed"
        return None, False, f"{name} failed to import: {type(exc).__name__}: {exc}"
    # Not only ImportError: a broken install also raises OSError (a missing shared library),
    # AttributeError or RuntimeError (an ABI or version mismatch) from inside the tool.
    except Exception as exc:
        return None, False, f"{name} failed to import: {type(exc).__name__}: {exc}"
    return module, True, f"{name} {tool_version(module)}"
