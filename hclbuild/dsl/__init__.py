from hclbuild.dsl.functions import def_  # HeteroCL: from heterocl.dsl import def_

__all__ = ["def_"]
