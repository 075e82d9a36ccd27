"""ctmatch's rules as an Inductor custom graph pass.

    import torch, ctmatch.inductor
    torch._inductor.config.post_grad_custom_post_pass = ctmatch.inductor.Pass(rules="bench")
    compiled = torch.compile(model)

uuid() changes with the library's version, its build (a hash of the compiled module, and of
ctmatch._ctmatch_torch where it is loaded, and whether it is in use), the rule set (and, for
rules compiled by a user, a hash of their module), so that Inductor's FX graph cache never
reuses a graph another pass produced.
"""
import functools
import hashlib

from . import _ctmatch, apply

try:  # torch 2.4 and later
    from torch._inductor.custom_graph_pass import CustomGraphPass as _Base
except Exception:  # older torch, or none: a plain callable
    _Base = object


@functools.lru_cache(maxsize=None)
def _file_hash(module_name):
    """A hash of a compiled module's file: it changes with every build."""
    import sys

    module = sys.modules.get(module_name)
    path = getattr(module, "__file__", None)
    if not path:
        return ""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Pass(_Base):
    """Runs ctmatch.apply(graph, rules, mode) on the graphs Inductor hands it."""

    def __init__(self, rules="bench", mode="sweep"):
        self.rules = rules
        self.mode = mode
        self.last_stats = None

    def __call__(self, graph):
        self.last_stats = apply(graph, rules=self.rules, mode=self.mode)

    def uuid(self):
        rules = self.rules if isinstance(self.rules, str) else self.rules.cache_key() + "|" + _file_hash(
            type(self.rules).__module__)
        # the TensorImpl reader gives some graphs more metadata than the Python attributes do
        reader = str(_ctmatch._tensor_impl_reader()) + _file_hash(_ctmatch.__name__ + "_torch")
        key = "|".join([_ctmatch.__version__, _file_hash(_ctmatch.__name__), reader, rules, self.mode])
        return hashlib.sha256(key.encode()).hexdigest()
