"""The schedule solver: a Temporal activity worker (Python SDK) on task queue `agent-flows-solver`.

It registers one activity, `solveSchedule`, called by name from the TypeScript workflows. The
input is the scheduling problem built by domain/schedule-model.ts (jobs with ordered tasks,
resources with quantities, release and due times, the objective); the reply is the schedule
found by Google OR-Tools CP-SAT, its status, objective, best bound and solve time.

Run: .tools/venv/bin/python solver/worker.py   (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
SOLVER_TASK_QUEUE, SOLVER_MAX_CONCURRENT; npm start, the demo and the tests start it for you).
A separate process on its own queue, so the solver scales and fails apart from the flows.

Sharing the solver: the worker takes up to SOLVER_QUEUE requests from Temporal at once but runs only
SOLVER_MAX_CONCURRENT searches; solver/slots.py decides who goes next (a slot kept for short jobs,
round robin between callers). A waiting request tells its workflow its place with the `solverQueue`
signal, so the flow's progress query says "waiting for a solver slot, N ahead". Every solve ends:
its time limit is capped (SOLVER_TIME_LIMIT_SECONDS), explaining an infeasible instance gets no more
than the same time again, and a cancelled request stops its search (heartbeats carry the cancel).

Its output is JSON lines (level, message, fields), the Temporal core's lines included; the process
that starts it (workers/solver-worker.ts) writes them as its own JSON lines.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import math
import os
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from typing import Any, Optional

from ortools import __version__ as ORTOOLS_VERSION
from ortools.sat.python import cp_model
from temporalio import activity
import temporalio.converter
from temporalio.client import Client
from temporalio.exceptions import ApplicationError
from temporalio.runtime import LogForwardingConfig, LoggingConfig, Runtime, TelemetryConfig, TelemetryFilter
from temporalio.worker import Worker

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from payload_codec import codec_from_env  # noqa: E402
from slots import Job, SolverSlots  # noqa: E402

TASK_QUEUE = os.environ.get("SOLVER_TASK_QUEUE", "agent-flows-solver")
#: The workflow's signal for a request's place in the queue (flows/schedule/contract.ts, solverQueueSignal).
QUEUE_SIGNAL = "solverQueue"
#: Longest caller key kept (Temporal's fairness keys are at most 64 bytes).
MAX_CALLER = 64


class SettingError(ValueError):
    pass


def _setting(name: str, default: float, low: float, high: float, whole: bool = False) -> float:
    """An environment setting: a number in [low, high] (a whole one when `whole`), else the process stops naming it."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        raise SettingError(f"{name} must be a {'whole ' if whole else ''}number, got {raw[:40]!r}") from None
    if not math.isfinite(value) or not low <= value <= high:
        raise SettingError(f"{name} must be between {low:g} and {high:g}, got {raw[:40]!r}")
    return value


@dataclasses.dataclass(frozen=True)
class Settings:
    #: Cap on one solve's time limit (the request's timeLimitSeconds is lowered to it).
    cap: float
    #: CP-SAT search threads per solve (a request may ask for fewer, never more).
    threads: int
    #: Searches run at once.
    slots: int
    #: Slots long jobs may hold (the rest are kept for short jobs).
    long_slots: int
    #: A job whose time limit is at most this is short.
    short_seconds: float
    #: Requests taken from Temporal beyond the running ones (they wait in solver/slots.py's order).
    queue: int

    @staticmethod
    def from_env() -> "Settings":
        slots = int(_setting("SOLVER_MAX_CONCURRENT", 2, 1, 64, whole=True))
        return Settings(
            cap=_setting("SOLVER_TIME_LIMIT_SECONDS", 30, 0.1, 3600),
            threads=int(_setting("SOLVER_WORKERS", 2, 1, 64, whole=True)),
            slots=slots,
            long_slots=int(_setting("SOLVER_LONG_SLOTS", max(1, slots - 1), 1, slots, whole=True)),
            short_seconds=_setting("SOLVER_SHORT_JOB_SECONDS", 10, 0.1, 3600),
            queue=int(_setting("SOLVER_QUEUE", 64, 0, 10000, whole=True)),
        )


def _log(level: str, message: str, **fields: Any) -> None:
    """One JSON line on stdout, read by workers/solver-worker.ts."""
    line = {"level": level, "timestamp": datetime.now(timezone.utc).isoformat(timespec="milliseconds"), "message": message}
    line.update(fields)
    print(json.dumps(line, default=str), flush=True)


class _JsonLines(logging.Handler):
    """Python's and the Temporal SDK's log records (the core's forwarded too) as JSON lines."""

    LEVELS = {"DEBUG": "debug", "INFO": "info", "WARNING": "warn", "ERROR": "error", "CRITICAL": "error"}

    def emit(self, record: logging.LogRecord) -> None:
        try:
            fields: dict[str, Any] = {"logger": record.name}
            if record.exc_info and record.exc_info[1] is not None:
                fields["error"] = f"{type(record.exc_info[1]).__name__}: {record.exc_info[1]}"
            _log(self.LEVELS.get(record.levelname, "info"), record.getMessage(), **fields)
        except Exception:  # a log line must never break the worker
            self.handleError(record)


def _fail(message: str) -> ApplicationError:
    """A problem that no retry can fix: the workflow sees it at once, with its message."""
    return ApplicationError(message, type="ScheduleProblemInvalid", non_retryable=True)


def _check(problem: dict[str, Any]) -> None:
    if not isinstance(problem, dict):
        raise _fail("the problem must be an object")
    for key in ("jobs", "resources", "horizon", "objective"):
        if key not in problem:
            raise _fail(f"the problem has no '{key}'")
    names = {r.get("name") for r in problem["resources"]}
    for job in problem["jobs"]:
        for task in job.get("tasks", []):
            if not isinstance(task.get("duration"), int) or task["duration"] < 0:
                raise _fail(f"job {job.get('id')!r} step {task.get('step')!r}: duration must be a whole number >= 0")
            for use in task.get("uses", []):
                if use.get("resource") not in names:
                    raise _fail(f"job {job.get('id')!r} step {task.get('step')!r} uses unknown resource {use.get('resource')!r}")


def _build(problem: dict[str, Any], with_deadline_literals: bool):
    """The CP-SAT model: one interval per task, cumulative per resource, precedence within jobs."""
    model = cp_model.CpModel()
    horizon = int(problem["horizon"])
    hard = problem.get("dueDates") == "hard"
    capacity = {r["name"]: int(r["quantity"]) for r in problem["resources"]}
    starts: list[list[Any]] = []
    ends: list[list[Any]] = []
    per_resource: dict[str, tuple[list[Any], list[int]]] = {name: ([], []) for name in capacity}
    job_ends = []
    tardiness = []
    deadline_literals: list[tuple[Any, dict[str, Any]]] = []
    for j, job in enumerate(problem["jobs"]):
        js, je = [], []
        for k, task in enumerate(job["tasks"]):
            duration = int(task["duration"])
            s = model.new_int_var(0, horizon, f"start_{j}_{k}")
            e = model.new_int_var(0, horizon, f"end_{j}_{k}")
            interval = model.new_interval_var(s, duration, e, f"task_{j}_{k}")
            for use in task.get("uses", []):
                intervals, demands = per_resource[use["resource"]]
                intervals.append(interval)
                demands.append(int(use.get("units", 1)))
            if k == 0:
                model.add(s >= int(job.get("release", 0)))
            else:
                model.add(s >= je[-1])
            js.append(s)
            je.append(e)
        starts.append(js)
        ends.append(je)
        if not je:
            continue
        job_ends.append(je[-1])
        due = job.get("due")
        if due is None:
            continue
        if hard:
            if with_deadline_literals:
                literal = model.new_bool_var(f"deadline_{j}")
                model.add(je[-1] <= int(due)).only_enforce_if(literal)
                deadline_literals.append((literal, job))
            else:
                model.add(je[-1] <= int(due))
        late = model.new_int_var(0, horizon, f"tardiness_{j}")
        model.add_max_equality(late, [je[-1] - int(due), 0])
        tardiness.append(late)
    for name, (intervals, demands) in per_resource.items():
        if not intervals:
            continue
        if capacity[name] == 1 and all(d == 1 for d in demands):
            model.add_no_overlap(intervals)
        else:
            model.add_cumulative(intervals, demands, capacity[name])
    # Identical jobs (same steps, release and, where it counts, due date) are interchangeable: taking
    # them in a fixed order removes symmetric copies of every schedule without losing any objective value.
    due_matters = hard or problem["objective"].get("solved") == "total-tardiness"
    groups: dict[str, list[int]] = {}
    for j, job in enumerate(problem["jobs"]):
        if not job["tasks"]:
            continue
        signature = repr((
            [(t["step"], t["duration"], sorted((u["resource"], u.get("units", 1)) for u in t.get("uses", []))) for t in job["tasks"]],
            job.get("release", 0),
            job.get("due") if due_matters else None,
            # While the cause of infeasibility is searched, each deadline may be dropped on its own:
            # jobs with a deadline are then no longer interchangeable.
            j if with_deadline_literals and job.get("due") is not None else None,
        ))
        groups.setdefault(signature, []).append(j)
    for members in groups.values():
        for a, b in zip(members, members[1:]):
            model.add(starts[a][0] <= starts[b][0])

    makespan = model.new_int_var(0, horizon, "makespan")
    if job_ends:
        model.add_max_equality(makespan, job_ends)
    total_tardiness = model.new_int_var(0, horizon * max(1, len(tardiness)), "total_tardiness")
    model.add(total_tardiness == sum(tardiness))
    objective = problem["objective"].get("solved", "makespan")
    model.minimize(total_tardiness if objective == "total-tardiness" else makespan)
    if deadline_literals:
        model.add_assumptions([lit for lit, _ in deadline_literals])
    return model, starts, ends, makespan, total_tardiness, deadline_literals


STATUS = {
    cp_model.OPTIMAL: "optimal",
    cp_model.FEASIBLE: "feasible",
    cp_model.INFEASIBLE: "infeasible",
    cp_model.MODEL_INVALID: "invalid",
    cp_model.UNKNOWN: "unknown",
}


def _capacity_conflicts(problem: dict[str, Any]) -> list[dict[str, Any]]:
    capacity = {r["name"]: int(r["quantity"]) for r in problem["resources"]}
    conflicts, seen = [], set()
    for job in problem["jobs"]:
        for task in job["tasks"]:
            for use in task.get("uses", []):
                key = (task["step"], use["resource"])
                if int(use.get("units", 1)) > capacity[use["resource"]] and key not in seen:
                    seen.add(key)
                    conflicts.append({
                        "kind": "step-needs-more-than-available",
                        "detail": f"step \"{task['step']}\" needs {use.get('units', 1)} {use['resource']}, "
                        f"but the firm has {capacity[use['resource']]}",
                        "job": job["id"], "step": task["step"], "resource": use["resource"],
                    })
    return conflicts


class Stopped(Exception):
    """The request was cancelled: no further search starts."""


class Stopper:
    """Stops the search in progress from another thread (the activity's, when it is cancelled)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._solver: Optional[cp_model.CpSolver] = None
        self.stopped = False

    def solve(self, solver: cp_model.CpSolver, model: cp_model.CpModel) -> int:
        with self._lock:
            if self.stopped:
                raise Stopped()
            self._solver = solver
        try:
            return solver.solve(model)
        finally:
            with self._lock:
                self._solver = None

    def stop(self) -> None:
        with self._lock:
            self.stopped = True
            if self._solver is not None:
                self._solver.stop_search()


def time_limit(problem: dict[str, Any], cap: float) -> float:
    """The request's time limit in seconds, lowered to the worker's cap; none given means the cap.

    Not a finite positive number (NaN, infinity, a string, a boolean, zero or less) is refused: a
    client that bypasses the flow's schema gets an error, never an endless or zero-length search.
    """
    raw = problem.get("timeLimitSeconds")
    if raw is None:
        return cap
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw) or raw <= 0:
        raise _fail(f"timeLimitSeconds must be a number of seconds above 0, got {str(raw)[:40]!r}")
    return min(float(raw), cap)


def search_threads(problem: dict[str, Any], most: int) -> int:
    """CP-SAT threads for this solve: what the request asks for, at most the worker's setting."""
    raw = problem.get("workers")
    if raw is None:
        return most
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        raise _fail(f"workers must be a whole number above 0, got {str(raw)[:40]!r}")
    return min(raw, most)


def solve(problem: dict[str, Any], settings: Optional[Settings] = None, stopper: Optional[Stopper] = None) -> dict[str, Any]:
    """Solves one problem; plain function so tests and the bench can call it without Temporal.

    Takes at most twice its time limit: the search, then (infeasible instances only) the search for
    the deadlines that conflict, within what is left of the same budget.
    """
    settings = settings or Settings.from_env()
    stopper = stopper or Stopper()
    _check(problem)
    began = time.monotonic()
    limit = time_limit(problem, settings.cap)
    base = {"solver": f"OR-Tools CP-SAT {ORTOOLS_VERSION}", "objectiveName": problem["objective"].get("solved", "makespan")}
    conflicts = _capacity_conflicts(problem)
    if conflicts:
        return {**base, "status": "infeasible", "objective": None, "bound": None, "makespan": None, "totalTardiness": None,
                "solveSeconds": round(time.monotonic() - began, 3), "tasks": [], "conflicts": conflicts}
    model, starts, ends, makespan, total_tardiness, _ = _build(problem, with_deadline_literals=False)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = limit
    solver.parameters.num_workers = search_threads(problem, settings.threads)
    solver.parameters.random_seed = 1
    status = stopper.solve(solver, model)
    name = STATUS.get(status, "unknown")
    result: dict[str, Any] = {**base, "status": name, "conflicts": []}
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        result["objective"] = int(solver.objective_value)
        result["bound"] = float(solver.best_objective_bound)
        result["makespan"] = int(solver.value(makespan))
        result["totalTardiness"] = int(solver.value(total_tardiness))
        result["tasks"] = [
            {"job": job["id"], "step": task["step"], "start": int(solver.value(starts[j][k])), "end": int(solver.value(ends[j][k]))}
            for j, job in enumerate(problem["jobs"]) for k, task in enumerate(job["tasks"])
        ]
    else:
        result.update({"objective": None, "bound": None, "makespan": None, "totalTardiness": None, "tasks": []})
        if status == cp_model.INFEASIBLE:
            result["conflicts"] = _deadline_core(problem, limit, time.monotonic() + limit, stopper)
    result["solveSeconds"] = round(time.monotonic() - began, 3)
    return result


def _deadline_core(problem: dict[str, Any], time_limit: float, deadline: float, stopper: Stopper) -> list[dict[str, Any]]:
    """Which deadlines cannot all be met together: CP-SAT's sufficient assumptions for infeasibility.

    Every search here ends by `deadline` (monotonic clock): the explanation costs at most one more
    time limit, however many deadlines there are.
    """
    model, *_rest, literals = _build(problem, with_deadline_literals=True)
    if not literals:
        return [{"kind": "no-solution-within-deadlines", "detail": "the constraints admit no schedule"}]
    left = lambda: deadline - time.monotonic()  # noqa: E731
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.01, min(time_limit, left()))
    solver.parameters.num_workers = 1  # the core is computed by the single-thread search
    if stopper.solve(solver, model) != cp_model.INFEASIBLE:
        return [{"kind": "no-solution-within-deadlines", "detail": "the deadlines cannot all be met (no smaller cause found in time)"}]
    index = {lit.index: job for lit, job in literals}
    core = [i for i in solver.sufficient_assumptions_for_infeasibility() if i in index]
    # CP-SAT's set is sufficient, not minimal: drop each deadline whose removal keeps the rest
    # infeasible, while time is left (a set not yet minimal is still a true cause).
    if len(core) <= 40:
        by_index = {lit.index: lit for lit, _ in literals}
        for i in list(core):
            if left() <= 0:
                break
            rest = [j for j in core if j != i]
            model.clear_assumptions()
            model.add_assumptions([by_index[j] for j in rest])
            probe = cp_model.CpSolver()
            probe.parameters.max_time_in_seconds = max(0.01, min(max(1.0, time_limit / 10), left()))
            probe.parameters.num_workers = 1
            if rest and stopper.solve(probe, model) == cp_model.INFEASIBLE:
                core = rest
    jobs = [index[i] for i in core]
    names = ", ".join(f"\"{j['id']}\" (due {j['due']})" for j in jobs) or "(all)"
    return [{
        "kind": "no-solution-within-deadlines",
        "detail": f"these jobs cannot all finish by their due dates on the shared resources: {names}",
        "jobs": [j["id"] for j in jobs],
    }]


def _solve_or_fail(problem: dict[str, Any], settings: Settings, stopper: Stopper) -> dict[str, Any]:
    try:
        return solve(problem, settings, stopper)
    except (ApplicationError, Stopped):
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise _fail(f"the problem is malformed: {type(err).__name__}: {str(err)[:200]}") from None


class QueueReporter:
    """Tells the request's workflow where it stands (the `solverQueue` signal), latest state only.

    At most one signal is in flight per request and at most one a second: a burst of queue
    changes costs one signal with the latest place, not one per change, so a long queue does not
    flood the waiting workflows' histories.
    """

    MIN_INTERVAL = 1.0

    def __init__(self, info: activity.Info, slots: SolverSlots, lane: str) -> None:
        self._handle = activity.client().get_workflow_handle(info.workflow_id, run_id=info.workflow_run_id)
        self._slots = slots
        self._lane = lane
        self._latest: Optional[dict[str, Any]] = None
        self._sent: Optional[dict[str, Any]] = None
        self._task: Optional[asyncio.Task] = None
        self._seq = 0
        self._failed = False

    def update(self, state: str, n: int) -> None:
        snapshot = self._slots.snapshot()
        self._latest = {"state": state, **({"ahead": n} if state == "waiting" else {"admitted": n}), "lane": self._lane,
                        "slots": snapshot["slots"], "longSlots": snapshot["longSlots"], "running": snapshot["running"]}
        if not self._failed and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        while self._latest is not None and self._latest != self._sent:
            update = self._latest
            self._seq += 1
            try:
                await self._handle.signal(QUEUE_SIGNAL, {**update, "seq": self._seq})
            except Exception as err:  # the workflow is gone or the server unreachable: the solve goes on
                self._failed = True
                _log("warn", "could not tell the workflow its place in the solver queue",
                     workflowId=self._handle.id, error=f"{type(err).__name__}: {str(err)[:200]}")
                return
            self._sent = update
            await asyncio.sleep(self.MIN_INTERVAL)

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except BaseException:
                pass


def caller_of(info: activity.Info) -> str:
    """The request's caller: the activity's Temporal fairness key (the workflow sets it), else its workflow."""
    key = info.priority.fairness_key if info.priority is not None and info.priority.fairness_key else ""
    return (key or info.workflow_id or "unknown")[:MAX_CALLER]


async def _finish(future: "asyncio.Future[Any]") -> None:
    """Waits for a search to end, through further cancellations: its slot is free only then."""
    while not future.done():
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            continue
        except BaseException:
            return


class SolverService:
    """The `solveSchedule` activity with its slots, thread pool and settings."""

    HEARTBEAT_EVERY = 2.0

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.slots = SolverSlots(settings.slots, settings.long_slots)
        self.executor = ThreadPoolExecutor(max_workers=settings.slots, thread_name_prefix="cp-sat")

    @activity.defn(name="solveSchedule")
    async def solve_schedule(self, problem: dict[str, Any]) -> dict[str, Any]:
        # Bad requests fail at once, before they take a place in the queue.
        try:
            _check(problem)
            limit = time_limit(problem, self.settings.cap)
            search_threads(problem, self.settings.threads)
        except ApplicationError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise _fail(f"the problem is malformed: {type(err).__name__}: {str(err)[:200]}") from None
        info = activity.info()
        lane = "long" if limit > self.settings.short_seconds else "short"
        reporter = QueueReporter(info, self.slots, lane)
        job = Job(caller=caller_of(info), long=lane == "long", report=reporter.update)
        about = {"workflowId": info.workflow_id, "caller": job.caller, "lane": lane}
        beating = asyncio.get_running_loop().create_task(self._heartbeat(job))
        arrived = time.monotonic()
        try:
            try:
                await self.slots.acquire(job)
            except asyncio.CancelledError:
                _log("info", "request cancelled while waiting for a slot", **about)
                raise
            _log("info", "solve started", **about, admitted=job.admitted, queued=job.queued,
                 waitedSeconds=round(time.monotonic() - arrived, 3), **self.slots.snapshot())
            try:
                stopper = Stopper()
                search = asyncio.wrap_future(self.executor.submit(_solve_or_fail, problem, self.settings, stopper))
                try:
                    reply = await asyncio.shield(search)
                except asyncio.CancelledError:
                    stopper.stop()
                    await _finish(search)
                    _log("info", "search cancelled", **about)
                    raise
                _log("info", "solve finished", **about, status=reply["status"], solveSeconds=reply["solveSeconds"])
                return reply
            finally:
                self.slots.release(job)
        finally:
            beating.cancel()
            await reporter.close()

    async def _heartbeat(self, job: Job) -> None:
        # Heartbeats carry the workflow's cancel to a waiting or running request, and let Temporal
        # see a dead worker within the heartbeat timeout instead of the whole start-to-close one.
        while True:
            activity.heartbeat({"waiting": job.admitted is None, "ahead": job.ahead})
            await asyncio.sleep(self.HEARTBEAT_EVERY)


def _runtime() -> Runtime:
    """The SDK runtime with the Rust core's warnings forwarded to Python's logging (JSON lines), not
    printed by the core as ANSI-coloured text."""
    core = logging.getLogger("temporalio.core")
    return Runtime(telemetry=TelemetryConfig(logging=LoggingConfig(
        filter=TelemetryFilter(core_level="WARN", other_level="ERROR"),
        forwarding=LogForwardingConfig(logger=core),
    )))


async def main(settings: Settings) -> None:
    address = os.environ.get("TEMPORAL_ADDRESS", "127.0.0.1:7233")
    namespace = os.environ.get("TEMPORAL_NAMESPACE", "default")
    # Flows run with AGENT_FLOWS_PAYLOAD_KEY encrypt the solver's input: read and answer in kind.
    codec = codec_from_env()
    converter = dataclasses.replace(temporalio.converter.default(), payload_codec=codec) if codec else temporalio.converter.default()
    client = await Client.connect(address, namespace=namespace, data_converter=converter, runtime=_runtime())
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    service = SolverService(settings)
    # Heartbeats reach the server as often as the activity gives them: the SDK would otherwise hold
    # them back to 80 % of the heartbeat time-out (8 s), and a cancelled run, which learns of its
    # cancel from a heartbeat's answer, would keep its slot and its search that long.
    worker = Worker(client, task_queue=TASK_QUEUE, activities=[service.solve_schedule],
                    max_concurrent_activities=settings.slots + settings.queue,
                    max_heartbeat_throttle_interval=timedelta(seconds=SolverService.HEARTBEAT_EVERY))
    try:
        _log("info", "polling task queue", taskQueue=TASK_QUEUE, address=address, namespace=namespace,
             ortools=ORTOOLS_VERSION, slots=settings.slots, longSlots=settings.long_slots,
             shortJobSeconds=settings.short_seconds, queue=settings.queue, timeLimitCapSeconds=settings.cap)
        async with worker:
            await stop.wait()
    finally:
        service.executor.shutdown(wait=False, cancel_futures=True)


if __name__ == "__main__":
    if "--codec-roundtrip" in sys.argv:
        # Interop check with client/payload-codec.ts: decode each base64 payload from stdin, re-encode it.
        import base64

        from temporalio.api.common.v1 import Payload

        codec = codec_from_env()
        out = []
        for item in json.load(sys.stdin):
            plain = codec.decode_one(Payload.FromString(base64.b64decode(item)))
            out.append({"plain": base64.b64encode(plain.SerializeToString()).decode(),
                        "sealed": base64.b64encode(codec.encode_one(plain).SerializeToString()).decode()})
        print(json.dumps(out))
        sys.exit(0)
    try:
        SETTINGS = Settings.from_env()
    except SettingError as err:
        print(json.dumps({"level": "error", "message": str(err)}), flush=True)
        sys.exit(2)
    if "--solve" in sys.argv:
        # One problem from stdin, the reply on stdout: for the bench and for checking a model by hand.
        print(json.dumps(solve(json.load(sys.stdin), SETTINGS)))
        sys.exit(0)
    handler = _JsonLines()
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    try:
        asyncio.run(main(SETTINGS))
    except KeyboardInterrupt:
        sys.exit(0)
