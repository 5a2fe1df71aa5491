"""Run one function per document in child processes, each with a time limit.

A parser that spins on a hostile PDF, or crashes the interpreter, ends its own
document (``TimedOut`` / ``Crashed``) and never the others. Up to ``workers``
children run at once (both cores on this machine). Children are forked, so
nothing is re-imported; results come back pickled over a pipe.

A child serves up to ``jobs_per_child`` documents one after another (the
parent hands it the next one when it reports the last), so a batch of small
files does not pay a fork per file. The time limit still runs per document,
from the moment it was handed over; a child that overruns it is killed, a
child that dies takes only the document it was on, and a fresh child carries
on with the rest.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import resource
import signal
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Iterable


@dataclass(frozen=True)
class Outcome:
    key: str
    value: Any = None
    error: BaseException | None = None
    error_kind: str = ""  # "" | "exception" | "timeout" | "crash"
    seconds: float = 0.0


def _serve(conn: Connection, fn: Callable[..., Any], jobs: list[tuple[str, tuple]], memory_mb: int | None = None,
           others: tuple[Connection, ...] = ()) -> None:
    """In the child: run the jobs whose indexes arrive, answer each in turn.
    It ends when the parent says so, or when the parent is gone (killed): it
    never waits for a parent that no longer exists. A child that runs out of
    memory where it cannot answer exits with ``OUT_OF_MEMORY_EXIT``, which the
    parent reads as that document's ``MemoryError``."""
    parent_pid = os.getppid()
    try:
        for other in others:  # the parent's ends of its other children's pipes: not ours to hold open
            other.close()
        _die_with_parent()
        limit = _limit_memory(memory_mb) if memory_mb else None
        while True:
            while not conn.poll(ORPHAN_POLL_S):
                if os.getppid() != parent_pid:
                    raise EOFError("the parent process is gone")
            index = conn.recv()
            if index is None:
                break
            payload = _answer(fn, jobs[index][1], limit)
            conn.send_bytes(payload)
            del payload
    except (EOFError, OSError):
        pass
    except MemoryError:  # past the budget outside the job's own frames: the exit code says it
        os._exit(OUT_OF_MEMORY_EXIT)
    finally:
        conn.close()
        os._exit(0)


OUT_OF_MEMORY_EXIT = 86  # a child's exit code for "over its memory budget, could not answer"
_OUT_OF_MEMORY = "over the memory budget"


def _result(fn: Callable[..., Any], args: tuple) -> bytes:
    try:
        result: tuple[str, Any] = ("ok", fn(*args))
    except MemoryError:
        raise
    except BaseException as exc:  # noqa: BLE001 - everything is reported to the parent
        result = ("exception", _picklable(exc))
    try:
        return pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)  # within the budget: a result too big is over it
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - an unpicklable value is this job's error
        return pickle.dumps(("exception", _picklable(RuntimeError(f"result could not be sent: {exc}"))))


def _answer(fn: Callable[..., Any], args: tuple, limit: int | None) -> bytes:
    """The pickled answer to one job. Past the memory budget anywhere in it
    (the work, its error, pickling the result) the answer is a
    ``MemoryError``, written once the failed frames and what they held are
    gone, with the budget lifted for that moment only (with a few MB left, a
    second allocation could fail too, and the child would die mute)."""
    try:
        return _result(fn, args)
    except MemoryError:
        pass
    _set_soft_memory_limit(None)
    try:
        gc.collect()
        return pickle.dumps(("exception", MemoryError(_OUT_OF_MEMORY)), protocol=pickle.HIGHEST_PROTOCOL)
    finally:
        _set_soft_memory_limit(limit)


ORPHAN_POLL_S = 1.0


def _load_prctl() -> Any:
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


# Resolved here, in the parent: a forked child of a threaded process must not
# dlopen (another thread may have held the loader's lock at the fork).
_PRCTL = _load_prctl()


def _die_with_parent() -> None:
    """Linux: SIGKILL this child when the process that forked it dies."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _vm_size_bytes() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _limit_memory(memory_mb: int) -> int:
    """Allow this child ``memory_mb`` MiB of address space beyond what it
    inherited at the fork: past it an allocation fails (``MemoryError``),
    ending this document, not the machine. Returns the limit set."""
    limit = _vm_size_bytes() + memory_mb * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    _set_soft_memory_limit(limit)
    return limit


def _set_soft_memory_limit(limit: int | None) -> None:
    """The soft address-space limit: ``limit`` bytes, or the hard limit
    (``None``). Raising it back up to the hard limit needs no privilege."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (hard if limit is None else limit, hard))


def _exit_description(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            pass
    return f"exit code {code}"


def _picklable(exc: BaseException) -> BaseException:
    try:
        pickle.dumps(exc)
        return exc
    except Exception:  # noqa: BLE001
        return RuntimeError(f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")


@dataclass
class _Child:
    process: Any
    conn: Connection
    served: int = 0
    index: int | None = None  # the job it is on
    started: float = 0.0


def _crash_error(process: Any, what: str = "parsing") -> RuntimeError:
    if what != "parsing":
        return RuntimeError(f"the {what} process died ({_exit_description(process.exitcode)}) on this document")
    return RuntimeError(
        f"the parser process died ({_exit_description(process.exitcode)}): this file crashes the parser — its "
        "bytes are kept under sources/; report it with the file"
    )


def _timeout_error(timeout_s: float, what: str = "parsing") -> TimeoutError:
    if what != "parsing":
        return TimeoutError(f"{what} took longer than the {timeout_s:g} s limit and was stopped — raise step_timeout_s "
                            "in its collection.toml if the document is just large")
    return TimeoutError(
        f"parsing took longer than the {timeout_s:g} s limit and was stopped — a malformed file can make a parser "
        "spin; if this one is just large, raise parse_timeout_s in its collection.toml"
    )


def run_isolated(
    fn: Callable[..., Any],
    jobs: Iterable[tuple[str, tuple]],
    timeout_s: float | None,
    workers: int = 2,
    daemon: bool = True,
    jobs_per_child: int = 1,
    memory_mb: int | None = None,
    what: str = "parsing",
) -> dict[str, Outcome]:
    """Run ``fn(*args)`` for each ``(key, args)`` in forked children, each job
    within ``timeout_s`` (``None``: no limit). A child serves up to
    ``jobs_per_child`` jobs, within ``memory_mb`` MiB of memory beyond what it
    inherited (``None``: no limit). A child that starts children of its own
    must not be a daemon (``daemon=False``). ``what`` names the work in the
    time-limit message."""
    ctx = multiprocessing.get_context("fork")
    job_list = list(jobs)
    pending = list(range(len(job_list)))
    children: list[_Child] = []
    outcomes: dict[str, Outcome] = {}

    def start_child() -> _Child:
        parent, child = ctx.Pipe(duplex=True)
        others = tuple(c.conn for c in children) + (parent,)
        process = ctx.Process(target=_serve, args=(child, fn, job_list, memory_mb, others), daemon=daemon)
        process.start()
        child.close()
        return _Child(process, parent)

    def retire(child: _Child, kill: bool = False) -> None:
        if kill:
            child.process.kill()
        else:
            try:
                child.conn.send(None)
            except OSError:
                pass
        child.process.join(5)
        child.conn.close()
        children.remove(child)

    def hand_over(child: _Child) -> None:
        child.index = pending.pop(0)
        child.started = time.monotonic()
        child.served += 1
        child.conn.send(child.index)

    try:
        while pending or any(c.index is not None for c in children):
            # give every idle child a job, retire the worn-out, start new ones
            for child in [c for c in children if c.index is None]:
                if pending and child.served < jobs_per_child:
                    hand_over(child)
                else:
                    retire(child)
            while pending and len(children) < max(1, workers):
                child = start_child()
                children.append(child)
                hand_over(child)
            busy = [c for c in children if c.index is not None]
            now = time.monotonic()
            if timeout_s is None:
                ready = wait([c.conn for c in busy])
            else:
                soonest = min(c.started + timeout_s for c in busy)
                ready = wait([c.conn for c in busy], timeout=max(0.0, soonest - now))
            for child in [c for c in busy if c.conn in ready]:
                key = job_list[child.index][0]
                elapsed = time.monotonic() - child.started
                child.index = None
                try:
                    status, value = pickle.loads(child.conn.recv_bytes())
                except (EOFError, OSError):
                    retire(child, kill=True)
                    if memory_mb and child.process.exitcode == OUT_OF_MEMORY_EXIT:
                        outcomes[key] = Outcome(key, error=MemoryError(_OUT_OF_MEMORY), error_kind="exception", seconds=elapsed)
                    else:
                        outcomes[key] = Outcome(key, error=_crash_error(child.process, what), error_kind="crash", seconds=elapsed)
                    continue
                if status == "ok":
                    outcomes[key] = Outcome(key, value=value, seconds=elapsed)
                else:
                    outcomes[key] = Outcome(key, error=value, error_kind="exception", seconds=elapsed)
                    if isinstance(value, MemoryError):
                        retire(child)  # its heap may stay spent: the next document gets a fresh child
            now = time.monotonic()
            for child in [c for c in children if c.index is not None]:
                if timeout_s is not None and now - child.started >= timeout_s:
                    key = job_list[child.index][0]
                    retire(child, kill=True)
                    outcomes[key] = Outcome(key, error=_timeout_error(timeout_s, what), error_kind="timeout", seconds=now - child.started)
    except BaseException:
        # interrupted (Ctrl-C) or broken: no child outlives this call
        for child in list(children):
            retire(child, kill=True)
        raise
    for child in list(children):
        retire(child)
    return outcomes
