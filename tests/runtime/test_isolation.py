"""A child past its memory budget always answers ``MemoryError`` — never a
mute death read as "the parser process died (exit code 0)", which is what CI
once saw on the 64 MiB budget document of tests/hostile/test_budgets.py."""

from __future__ import annotations

import pickle

from duocthu_assets.runtime import isolation
from duocthu_assets.runtime.isolation import OUT_OF_MEMORY_EXIT, run_isolated


class _TooBigToSend:
    def __reduce__(self):
        raise MemoryError("pickling past the budget")


def _result_over_budget() -> _TooBigToSend:
    return _TooBigToSend()


class _NoMemoryLeft:
    """``pickle`` in a child whose every allocation fails."""

    HIGHEST_PROTOCOL = pickle.HIGHEST_PROTOCOL

    @staticmethod
    def dumps(*_args, **_kwargs):
        raise MemoryError("no memory left to answer")


def _dies_mute() -> None:
    isolation.pickle = _NoMemoryLeft  # in this forked child only
    raise MemoryError("the work itself")


def _fine(n: int) -> int:
    return n


def test_a_result_that_cannot_be_pickled_within_the_budget_is_a_memory_error():
    out = run_isolated(_result_over_budget, [("big", ()), ("small", ())], timeout_s=60, workers=1, memory_mb=64,
                       jobs_per_child=2)
    assert isinstance(out["big"].error, MemoryError), out["big"]
    assert out["big"].error_kind == "exception"


def test_a_child_that_cannot_answer_its_memory_error_exits_with_a_code_the_parent_reads():
    out = run_isolated(_dies_mute, [("mute", ())], timeout_s=60, workers=1, memory_mb=64)
    assert isinstance(out["mute"].error, MemoryError), out["mute"]
    assert str(out["mute"].error) == "over the memory budget"


def test_the_exit_code_means_memory_only_under_a_budget():
    """Without a budget the same death is a crash, in the crash's words."""
    out = run_isolated(_dies_mute, [("mute", ())], timeout_s=60, workers=1)
    assert out["mute"].error_kind == "crash"
    assert f"exit code {OUT_OF_MEMORY_EXIT}" in str(out["mute"].error)


def test_a_fresh_child_follows_the_memory_error(tmp_path):
    """The child that ran out may keep its heap spent: it is retired, and
    the next document starts in a new one."""
    import os

    def job(kind: str):
        if kind == "big":
            (tmp_path / "big.pid").write_text(str(os.getpid()))
            return _TooBigToSend()
        return os.getpid()

    out = run_isolated(job, [("big", ("big",)), ("after", ("small",)), ("then", ("small",))], timeout_s=60, workers=1,
                       memory_mb=64, jobs_per_child=3)
    assert isinstance(out["big"].error, MemoryError)
    assert out["after"].value != int((tmp_path / "big.pid").read_text())
    assert out["after"].value == out["then"].value  # the fresh child serves the rest
