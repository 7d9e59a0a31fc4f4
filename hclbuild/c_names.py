"""C identifiers: the words generated C++ may not use for its own names, and how a user's name
(any printable string: a tensor may be named "A A" or "lambda") becomes a legal, unique one.

A leaf module: the schedule names outlined functions with it and the HLS emitter names arguments,
locals and labels with it, so both agree on what a C identifier is.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# C++ keywords and names the generated code relies on: never a function, parameter or local
_RESERVED_WORDS = """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
    char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
    co_return co_yield decltype default delete do double dynamic_cast else enum explicit export
    extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
    nullptr operator or or_eq private protected public register reinterpret_cast requires return
    short signed sizeof static static_assert static_cast struct switch template this thread_local
    throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while
    xor xor_eq main std int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t
    ap_int ap_uint ap_fixed ap_ufixed INFINITY NAN"""
CPP_RESERVED = frozenset(_RESERVED_WORDS.split())

# ASCII only: Vitis HLS and older g++ take no other letters in identifiers
C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_c_identifier(name: object) -> bool:
    """`name` is a string of ASCII letters, digits and '_' not starting with a digit."""
    return isinstance(name, str) and C_IDENTIFIER.fullmatch(name) is not None


def sanitize(name: str) -> str:
    """A C identifier close to `name`: every other character becomes '_' (`i.outer` -> `i_outer`,
    `x y!` -> `x_y_`), and a leading digit gets a '_' before it."""
    text = re.sub(r"[^A-Za-z0-9_]", "_", name) or "v"
    if text[0].isdigit():
        text = "_" + text
    return text


def unique(base: str, taken: set[str] | frozenset[str] | Callable[[str], bool]) -> str:
    """`base` when it is neither reserved nor taken, else the first free `base_1`, `base_2`, ..."""
    is_taken = taken.__contains__ if isinstance(taken, (set, frozenset)) else taken
    if base not in CPP_RESERVED and not is_taken(base):
        return base
    k = 1
    while is_taken(f"{base}_{k}"):
        k += 1
    return f"{base}_{k}"


__all__ = ["CPP_RESERVED", "is_c_identifier", "sanitize", "unique"]
