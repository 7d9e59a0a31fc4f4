"""HeteroCL issue #387: a @def_ function decorated at import time, in another module."""

import hclbuild as hcl
from hclbuild.dsl import def_


@def_([(10, 10)])
def submodule(A):
    """Adds one to A in place (HeteroCL's version made a local tensor; this one writes back)."""
    hcl.update(A, lambda *args: A[args] + 1)
