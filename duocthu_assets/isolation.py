"""Run one function per document in child processes, each with a time limit.

A parser that spins on a hostile PDF, or crashes the interpreter, ends its own
document (``TimedOut`` / ``Crashed``) and never the others. Up to ``workers``
children run at once (both cores on this machine). Children are forked, so
nothing is re-imported; results come back pickled over a pipe.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
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


def _child(conn: Connection, fn: Callable[..., Any], args: tuple) -> None:
    try:
        result: tuple[str, Any] = ("ok", fn(*args))
    except BaseException as exc:  # noqa: BLE001 - everything is reported to the parent
        result = ("exception", _picklable(exc))
    try:
        conn.send_bytes(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    finally:
        conn.close()
        os._exit(0)


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


def run_isolated(
    fn: Callable[..., Any],
    jobs: Iterable[tuple[str, tuple]],
    timeout_s: float,
    workers: int = 2,
) -> dict[str, Outcome]:
    """Run ``fn(*args)`` for each ``(key, args)`` in its own forked child."""
    ctx = multiprocessing.get_context("fork")
    pending = list(jobs)
    running: dict[Connection, tuple[str, Any, float]] = {}
    outcomes: dict[str, Outcome] = {}
    while pending or running:
        while pending and len(running) < max(1, workers):
            key, args = pending.pop(0)
            parent, child = ctx.Pipe(duplex=False)
            process = ctx.Process(target=_child, args=(child, fn, args), daemon=True)
            process.start()
            child.close()
            running[parent] = (key, process, time.monotonic())
        now = time.monotonic()
        soonest = min(start + timeout_s for _, _, start in running.values())
        ready = wait(list(running), timeout=max(0.0, soonest - now))
        for conn in ready:
            key, process, start = running.pop(conn)
            elapsed = time.monotonic() - start
            try:
                status, value = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):
                process.join(5)
                outcomes[key] = Outcome(
                    key, error=RuntimeError(f"the parser process died ({_exit_description(process.exitcode)}): this file "
                                            "crashes the parser — its bytes are kept under sources/; report it with the file"),
                    error_kind="crash", seconds=elapsed,
                )
                continue
            finally:
                conn.close()
            process.join(5)
            if status == "ok":
                outcomes[key] = Outcome(key, value=value, seconds=elapsed)
            else:
                outcomes[key] = Outcome(key, error=value, error_kind="exception", seconds=elapsed)
        now = time.monotonic()
        for conn, (key, process, start) in list(running.items()):
            if now - start >= timeout_s:
                process.kill()
                process.join(5)
                conn.close()
                del running[conn]
                outcomes[key] = Outcome(
                    key, error=TimeoutError(
                        f"parsing took longer than the {timeout_s:g} s limit and was stopped — a malformed file can make "
                        "a parser spin; if this one is just large, raise parse_timeout_s in its collection.toml"
                    ),
                    error_kind="timeout", seconds=now - start,
                )
    return outcomes
