"""The source engine's lowering of calls (a mixin of the lowerer in ``lowering``): calls
dispatched at run time, numpy functions bound when the function is transformed, array
methods through the shared table (rules.METHODS), np.r_/np.c_, and the conversions to
plain numbers that are refused.
"""

import ast

import numpy as np

from .. import _keywords, rules
from .ir import Build, Op, Ref
from .parse import error

#: keyword arguments that are axes, orders and flags: never a derivative's carrier
INDEX_KEYWORDS = frozenset({"axis", "axes", "axis1", "axis2", "axisa", "axisb", "axisc",
                            "keepdims", "ddof", "ord", "k", "n", "norm", "side", "kind"})


class CallLowering:
    """Lowering of ``ast.Call`` (and np.r_[...]) for ``lowering._Lowerer``, which provides
    ``scope``, ``expr``, ``new``, ``emit``, ``helper``, ``static``, ``plain``, ``plain_ref``,
    ``_index``, ``line`` and ``where``."""

    def call(self, e, hint):
        kind = self.scope.callee(e)
        if kind in ("zip", "enumerate"):
            raise error(f"{kind}(...) of differentiable values outside a for statement's "
                        f"header", e, self.where)
        if any(k.arg is None for k in e.keywords):
            raise error("**kwargs in a call", e, self.where)
        if kind == "method" and (e.func.attr in rules.METHODS or self.active(e.func.value)):
            return self.method(e, hint)
        self.check_escape(e)
        args = [self.expr(a) for a in e.args]
        kwargs = [(k.arg, self.expr(k.value)) for k in e.keywords]
        fn = self.library_rule(e, kwargs)
        if fn is not None:
            name = f"np_{getattr(fn, '__name__', 'fn')}"
            texts = [str(a) for a in args] + [f"{k}={v}" for k, v in kwargs]
            primal = f"{self.helper(name, fn)}({', '.join(texts)})"
            return self.static(hint, fn, name, args, primal, kwargs)
        out = self.new(hint, True)
        back = self.new(None, False, "_b")
        if kind == "map":
            active = tuple(i for i, a in enumerate(args[1:]) if a.active)
            op = Op(self.line, out, args, kwargs, via=self.helper("map"), back=back,
                    extra=f"active={active}")
        elif kind == "sum":
            op = Op(self.line, out, args, kwargs, via=self.helper("sum"), back=back)
        else:
            op = Op(self.line, out, args, kwargs, via=self.helper("call"),
                    callee=self.plain(e.func), back=back)
        self.emit(op)
        return Ref(out)

    def check_escape(self, e):
        """A conversion to a plain number (``float(x)``, ``math.sin(x)``, ``np.float64(x)``)
        of a differentiable value would drop its derivative: refused here, with the line."""
        obj = self.scope.resolve(e.func)
        plain_number = obj is float or obj is complex or (
            isinstance(obj, type) and issubclass(obj, np.generic))
        if plain_number or getattr(obj, "__module__", None) in ("math", "cmath"):
            name = getattr(obj, "__qualname__", None) or ast.unparse(e.func)
            where = f"{obj.__module__}." if getattr(obj, "__module__", None) in (
                "math", "cmath") else ""
            raise error(f"{where}{name}() of a differentiable value (it would drop the "
                        f"derivative: numpy functions and operators keep it)", e, self.where)

    def library_rule(self, e, kwargs):
        """The numpy function called by ``e`` (``np.trace(x)``, ``np.linalg.inv(a)``) when its
        rule can be bound now, as an operator's is: a module attribute with a rule of one
        output. The generated code then calls that function object itself (bound when the
        function is transformed, like the rule), skipping the run-time dispatch."""
        if not isinstance(e.func, ast.Attribute) or any(k == "out" for k, _ in kwargs):
            return None
        fn = self.scope.resolve(e.func)
        module = getattr(fn, "__module__", None) or ""
        if not (isinstance(fn, np.ufunc) or module.partition(".")[0] in ("numpy", "scipy")):
            return None
        try:
            rule = rules.find(fn)
        except TypeError:
            return None
        if rule is None or rule.composite is not None or fn in rules.CANONICAL:
            return None
        return fn

    def method(self, e, hint):
        """``x.name(...)`` through rules.METHODS, the table every engine shares."""
        name = e.func.attr
        if name not in rules.METHODS:
            raise error(f"method .{name}() on a differentiable value (differentiated methods: "
                        f"{', '.join(sorted(rules.METHODS))})", e, self.where)
        x = self.expr(e.func.value)
        args = [self.expr(a) for a in e.args]
        kwargs = [(k.arg, self.expr(k.value)) for k in e.keywords]
        texts = [str(a) for a in args] + [f"{k}={v}" for k, v in kwargs]
        primal = f"{x}.{name}({', '.join(texts)})"
        fn = rules.METHODS[name]
        if name in rules.PACKED and len(args) > 1:  # x.reshape(3, 4): np.reshape(x, (3, 4))
            args = [Ref(text=f"({', '.join(map(str, args))})")]
        return self.static(hint, fn, name, [x, *args], primal, kwargs)

    def concatenator(self, e, hint):
        """``np.r_[x, c]`` / ``np.c_[...]``: a call of the concatenator on the tuple of its
        items (slices are constant ranges), differentiated through its canonical form."""
        items = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        refs = [self.plain_ref(self._index(i)) if isinstance(i, ast.Slice) else self.expr(i)
                for i in items]
        key = self.new(None, True)
        self.emit(Build(self.line, key, refs, "()"))
        out = self.new(hint, True)
        self.emit(Op(self.line, out, [Ref(key)], via=self.helper("call"),
                     callee=self.plain(e.value), back=self.new(None, False, "_b")))
        return Ref(out)

    def keyword_call(self, hint, fn, short, args, kwargs):
        """A call bound at transform time whose keywords its rule cannot take as they are:
        a differentiable keyword argument is refused now (rules differentiate positional
        ones), and out=, dtype=, ... that the rule does not name become a run-time call,
        which drops them where they change nothing and refuses them by name otherwise
        (kernels/ad/_keywords.py). None when the call can be bound as it is."""
        rule = rules.RULES.get(fn)
        for key, ref in kwargs:
            # (axis=, keepdims=, ... are shapes and flags: a helper's parameter passed on as
            # axis= may look active, it carries no derivative; numpy refuses a float there)
            if ref.active and key not in INDEX_KEYWORDS:
                raise rules.MissingRuleError(
                    f"{rule.name if rule else short}(..., {key}=...): the keyword argument "
                    f"{key}= carries a derivative, but rules differentiate positional "
                    f"arguments; pass it positionally ({self.where.filename}, line "
                    f"{self.line})")
        if rule is None or not any(k in _keywords.REASONS and k not in rule.keywords
                                   for k, _ in kwargs):
            return None
        out = self.new(hint, True)
        self.emit(Op(self.line, out, args, kwargs, via=self.helper("call"),
                     callee=self.helper(f"{short}_{id(fn)}", fn),
                     back=self.new(None, False, "_b")))
        return Ref(out)
