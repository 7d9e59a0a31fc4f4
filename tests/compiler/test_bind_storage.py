"""s.bind_storage(tensor, "RAM_2P"): the RAM a local buffer is, as `#pragma HLS bind_storage` after its
declaration (an argument's RAM is [interface] storage_type, tests/project/test_storage_type.py)."""

from __future__ import annotations

import pytest

import hclbuild as hcl
from hclbuild.errors import APIError


def _kernel(A: hcl.Tensor) -> hcl.Tensor:
    T = hcl.local((8, 8), hcl.Int(32), "T")
    with hcl.for_(0, 8, name="i", tag="fill") as i, hcl.for_(0, 8, name="j") as j:
        T[j, i] = A[i, j]
    B = hcl.compute((8, 8), lambda i, j: T[i, j] + 1, "B")
    return hcl.compute((8, 8), lambda i, j: B[i, j] * 2, "C")


def _schedule() -> tuple[hcl.Schedule, hcl.Tensor]:
    hcl.init(hcl.Int(32))
    A = hcl.placeholder((8, 8), "A")
    return hcl.create_schedule([A], _kernel), A


def test_a_local_and_a_stage_output_are_bound_to_a_ram() -> None:
    s, _ = _schedule()
    s.bind_storage(_kernel.T, "RAM_2P")  # an hcl.local is kernel.<name> too
    s.bind_storage(_kernel.B, "ram_t2p")
    code = hcl.build(s, target="vhls")
    assert "  int32_t T[8][8];\n  #pragma HLS bind_storage variable=T type=ram_2p\n" in code
    assert "  int32_t B[8][8];\n  #pragma HLS bind_storage variable=B type=ram_t2p\n" in code


def test_bind_storage_refuses_arguments_and_unknown_rams() -> None:
    s, A = _schedule()
    with pytest.raises(APIError, match=r"^bind_storage: 'A' is not a local buffer \(an argument's is"):
        s.bind_storage(A, "RAM_1P")
    with pytest.raises(
        APIError, match=r"^bind_storage: storage type 'RAM_4P' of 'B' is not one of RAM_1P, RAM_2P, RAM_T2P$"
    ):
        s.bind_storage(_kernel.B, "RAM_4P")
