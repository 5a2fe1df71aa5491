"""Argument types shared by the `duocthu` subcommands."""

from __future__ import annotations

import argparse
from typing import Callable

from .resources import DEFAULT_WAREHOUSE, WAREHOUSE_ENV, default_warehouse_root

__all__ = ["DEFAULT_WAREHOUSE", "WAREHOUSE_ENV", "default_warehouse_root", "whole_number"]


def whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``."""

    def parse(value: str) -> int:
        try:
            n = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
        if n < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}")
        return n

    return parse
