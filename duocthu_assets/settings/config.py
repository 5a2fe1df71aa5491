"""Settings dataclasses resolved from None, an instance or a mapping: the
one way every settings object of the project is validated."""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, TypeVar

T = TypeVar("T")


def resolve_config(cls: type[T], value: "T | Mapping[str, Any] | None", what: str) -> T:
    """An instance of the settings dataclass ``cls`` from None (defaults), an
    instance, or a mapping whose keys must all be fields (an unknown key is an
    error naming it, never silently dropped)."""
    if value is None:
        return cls()
    if isinstance(value, cls):
        return value
    if isinstance(value, Mapping):
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(value) - known)
        if unknown:
            raise ValueError(f"unknown {what}: {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        return cls(**value)
    raise TypeError(f"cannot resolve {what} from {type(value).__name__}")
