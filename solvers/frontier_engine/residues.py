"""Exact counts from residues: the moduli a count needs and the Chinese remainder theorem that rebuilds it.

Counts only ever add, so a counter can keep them modulo 2**64 (plain wrapping adds) and a few primes
below 2**62 (two residues add without overflow) and rebuild the exact integer at the end.
"""

from __future__ import annotations

import math

PRIME_BITS = 62  # lanes beyond the first are modulo primes below 2**62: two residues add without overflow
WITNESSES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)  # decide every n < 3.3 * 10**24


def is_prime(n: int) -> bool:
    """Miller-Rabin with the bases that decide every n < 3.3 * 10**24."""
    if n < 2:
        return False
    for p in WITNESSES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in WITNESSES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def primes_below(limit: int, count: int) -> list[int]:
    """The ``count`` largest primes below ``limit``."""
    found, n = [], limit - 1
    while len(found) < count:
        if is_prime(n):
            found.append(n)
        n -= 1
    return found


def moduli_for(bound_bits: int) -> list[int]:
    """The moduli whose product exceeds 2**bound_bits: 2**64 first, then primes below 2**62."""
    extra = max(0, math.ceil((bound_bits - 64) / (PRIME_BITS - 1)))  # each prime is above 2**61
    return [1 << 64] + primes_below(1 << PRIME_BITS, extra)


def crt(residues: list[int], moduli: list[int]) -> int:
    """The least non-negative x with x = residues[i] mod moduli[i] (pairwise coprime moduli)."""
    x, m = 0, 1
    for r, n in zip(residues, moduli, strict=True):
        t = ((r - x) * pow(m, -1, n)) % n
        x, m = x + m * t, m * n
    return x
