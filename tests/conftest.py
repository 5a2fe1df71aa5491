"""Shared fixtures (helpers live in tests/support)."""

from __future__ import annotations

import pytest

from tests.support.paths import corpus_path


@pytest.fixture
def corpus():
    return corpus_path
