"""Loop-nest plans: what split/reorder/fuse/tile and the loop pragmas make of a stage's axes.

Pure data, no MLIR. The builder asks a plan for the leaf loops (outermost first) and, for each
original axis, the index expression that recovers it from the leaf loop variables.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hclbuild.errors import APIError
from hclbuild.schedule.directives import LoopDirectives


@dataclass
class Leaf:
    name: str
    extent: int
    directives: LoopDirectives = field(default_factory=LoopDirectives)


# index expressions over leaf names: ("leaf", name) | ("split", outer, inner, factor)
# | ("fused_div", fused, inner_extent) | ("fused_mod", fused, inner_extent)
IndexExpr = tuple


@dataclass
class LoopNest:
    """The loops of one band of axes (a stage's spatial axes, or one reduction's axes)."""

    leaves: list[Leaf]
    binding: dict[str, IndexExpr]
    extents: dict[str, int]  # original axis -> extent
    # (index expression, bound): the body runs only where every expression is < its bound,
    # needed when a split factor does not divide the loop's extent
    guards: list[tuple[IndexExpr, int]] = field(default_factory=list)

    @classmethod
    def of_axes(cls, axes: list[tuple[str, int]]) -> LoopNest:
        return cls(
            leaves=[Leaf(name, extent) for name, extent in axes],
            binding={name: ("leaf", name) for name, _ in axes},
            extents=dict(axes),
        )

    def has_leaf(self, name: str) -> bool:
        return any(leaf.name == name for leaf in self.leaves)

    def leaf(self, name: str) -> Leaf:
        for leaf in self.leaves:
            if leaf.name == name:
                return leaf
        raise APIError(f"no loop named {name!r} (loops: {', '.join(x.name for x in self.leaves)})")

    def _position(self, name: str) -> int:
        for k, leaf in enumerate(self.leaves):
            if leaf.name == name:
                return k
        raise APIError(f"no loop named {name!r} (loops: {', '.join(x.name for x in self.leaves)})")

    def _substitute(self, old: str, new: IndexExpr) -> None:
        def sub(expr: IndexExpr) -> IndexExpr:
            if expr[0] == "leaf":
                return new if expr[1] == old else expr
            return (expr[0],) + tuple(sub(x) if isinstance(x, tuple) else x for x in expr[1:])

        self.binding = {axis: sub(expr) for axis, expr in self.binding.items()}
        self.guards = [(sub(expr), bound) for expr, bound in self.guards]

    def split(self, name: str, factor: int | None, nparts: int | None) -> tuple[str, str]:
        pos = self._position(name)
        leaf = self.leaves[pos]
        if (factor is None) == (nparts is None):
            raise APIError(f"split({name!r}): give exactly one of factor and nparts")
        if factor is None:
            if not isinstance(nparts, int) or nparts <= 0:
                raise APIError(f"split({name!r}): nparts must be a positive int, got {nparts!r}")
            factor = -(-leaf.extent // nparts)
        if not isinstance(factor, int) or isinstance(factor, bool) or factor <= 0:
            raise APIError(f"split({name!r}): factor must be a positive int, got {factor!r}")
        # nparts asks for exactly that many outer trips (as TVM); ceil(extent / factor) may be fewer
        outer_extent = nparts if nparts is not None else -(-leaf.extent // factor)
        outer = Leaf(f"{name}.outer", outer_extent)
        inner = Leaf(f"{name}.inner", factor)
        self.leaves[pos : pos + 1] = [outer, inner]
        recombined = ("split", ("leaf", outer.name), ("leaf", inner.name), factor)
        self._substitute(name, recombined)
        if outer_extent * factor != leaf.extent:
            self.guards.append((recombined, leaf.extent))
        return outer.name, inner.name

    def reorder(self, names: list[str]) -> None:
        positions = sorted(self._position(n) for n in names)
        if len(set(names)) != len(names):
            raise APIError(f"reorder: a loop is named twice in {names}")
        moved = [self.leaf(n) for n in names]
        for pos, leaf in zip(positions, moved):
            self.leaves[pos] = leaf

    def merge(self, other: LoopNest) -> None:
        """Append other's loops (attributes, bindings and guards kept) inside this nest's loops."""
        self.leaves.extend(other.leaves)
        self.binding.update(other.binding)
        self.extents.update(other.extents)
        self.guards.extend(other.guards)

    def fuse(self, names: list[str]) -> str:
        positions = [self._position(n) for n in names]
        if positions != list(range(positions[0], positions[0] + len(positions))):
            raise APIError(f"fuse: loops {names} must be adjacent and outermost first")
        parts = [self.leaves[p] for p in positions]
        fused_name = "_".join(names) + "_fused"
        total = 1
        for part in parts:
            total *= part.extent
        fused = Leaf(fused_name, total)
        self.leaves[positions[0] : positions[-1] + 1] = [fused]
        stride = total
        for part in parts:
            stride //= part.extent
            # part = (fused / stride) % extent
            self._substitute(part.name, ("fused", ("leaf", fused_name), stride, part.extent))
        return fused_name
