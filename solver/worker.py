"""The schedule solver: a Temporal activity worker (Python SDK) on task queue `agent-flows-solver`.

It registers one activity, `solveSchedule`, called by name from the TypeScript workflows. The
input is the scheduling problem built by domain/schedule-model.ts (jobs with ordered tasks,
resources with quantities, release and due times, the objective); the reply is the schedule
found by Google OR-Tools CP-SAT, its status, objective, best bound and solve time.

Run: .tools/venv/bin/python solver/worker.py   (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
SOLVER_TASK_QUEUE, SOLVER_MAX_CONCURRENT; npm start, the demo and the tests start it for you).
A separate process on its own queue, so the solver scales and fails apart from the flows.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ortools import __version__ as ORTOOLS_VERSION
from ortools.sat.python import cp_model
from temporalio import activity
import temporalio.converter
from temporalio.client import Client
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from payload_codec import codec_from_env  # noqa: E402

TASK_QUEUE = os.environ.get("SOLVER_TASK_QUEUE", "agent-flows-solver")


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


def solve(problem: dict[str, Any]) -> dict[str, Any]:
    """Solves one problem; plain function so tests and the bench can call it without Temporal."""
    _check(problem)
    began = time.monotonic()
    base = {"solver": f"OR-Tools CP-SAT {ORTOOLS_VERSION}", "objectiveName": problem["objective"].get("solved", "makespan")}
    conflicts = _capacity_conflicts(problem)
    if conflicts:
        return {**base, "status": "infeasible", "objective": None, "bound": None, "makespan": None, "totalTardiness": None,
                "solveSeconds": round(time.monotonic() - began, 3), "tasks": [], "conflicts": conflicts}
    model, starts, ends, makespan, total_tardiness, _ = _build(problem, with_deadline_literals=False)
    solver = cp_model.CpSolver()
    cap = float(os.environ.get("SOLVER_TIME_LIMIT_SECONDS", "30"))
    solver.parameters.max_time_in_seconds = min(float(problem.get("timeLimitSeconds", cap)), cap)
    solver.parameters.num_workers = int(problem.get("workers", os.environ.get("SOLVER_WORKERS", "2")))
    solver.parameters.random_seed = 1
    status = solver.solve(model)
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
            result["conflicts"] = _deadline_core(problem, solver.parameters.max_time_in_seconds)
    result["solveSeconds"] = round(time.monotonic() - began, 3)
    return result


def _deadline_core(problem: dict[str, Any], time_limit: float) -> list[dict[str, Any]]:
    """Which deadlines cannot all be met together: CP-SAT's sufficient assumptions for infeasibility."""
    model, *_rest, literals = _build(problem, with_deadline_literals=True)
    if not literals:
        return [{"kind": "no-solution-within-deadlines", "detail": "the constraints admit no schedule"}]
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = 1  # the core is computed by the single-thread search
    if solver.solve(model) != cp_model.INFEASIBLE:
        return [{"kind": "no-solution-within-deadlines", "detail": "the deadlines cannot all be met (no smaller cause found in time)"}]
    index = {lit.index: job for lit, job in literals}
    core = [i for i in solver.sufficient_assumptions_for_infeasibility() if i in index]
    # CP-SAT's set is sufficient, not minimal: drop each deadline whose removal keeps the rest infeasible.
    if len(core) <= 40:
        by_index = {lit.index: lit for lit, _ in literals}
        for i in list(core):
            rest = [j for j in core if j != i]
            model.clear_assumptions()
            model.add_assumptions([by_index[j] for j in rest])
            probe = cp_model.CpSolver()
            probe.parameters.max_time_in_seconds = max(1.0, time_limit / 10)
            probe.parameters.num_workers = 1
            if rest and probe.solve(model) == cp_model.INFEASIBLE:
                core = rest
    jobs = [index[i] for i in core]
    names = ", ".join(f"\"{j['id']}\" (due {j['due']})" for j in jobs) or "(all)"
    return [{
        "kind": "no-solution-within-deadlines",
        "detail": f"these jobs cannot all finish by their due dates on the shared resources: {names}",
        "jobs": [j["id"] for j in jobs],
    }]


@activity.defn(name="solveSchedule")
def solve_schedule(problem: dict[str, Any]) -> dict[str, Any]:
    try:
        return solve(problem)
    except ApplicationError:
        raise
    except (KeyError, TypeError, ValueError) as err:
        raise _fail(f"the problem is malformed: {type(err).__name__}: {str(err)[:200]}") from None


async def main() -> None:
    address = os.environ.get("TEMPORAL_ADDRESS", "127.0.0.1:7233")
    namespace = os.environ.get("TEMPORAL_NAMESPACE", "default")
    concurrent = int(os.environ.get("SOLVER_MAX_CONCURRENT", "2"))
    # Flows run with AGENT_FLOWS_PAYLOAD_KEY encrypt the solver's input: read and answer in kind.
    codec = codec_from_env()
    converter = dataclasses.replace(temporalio.converter.default(), payload_codec=codec) if codec else temporalio.converter.default()
    client = await Client.connect(address, namespace=namespace, data_converter=converter)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    with ThreadPoolExecutor(max_workers=concurrent) as executor:
        worker = Worker(client, task_queue=TASK_QUEUE, activities=[solve_schedule], activity_executor=executor,
                        max_concurrent_activities=concurrent)
        print(f"[solver] polling task queue {TASK_QUEUE} on {address} (namespace {namespace}); OR-Tools {ORTOOLS_VERSION}",
              flush=True)
        async with worker:
            await stop.wait()


if __name__ == "__main__":
    if "--codec-roundtrip" in sys.argv:
        # Interop check with client/payload-codec.ts: decode each base64 payload from stdin, re-encode it.
        import base64
        import json

        from temporalio.api.common.v1 import Payload

        codec = codec_from_env()
        out = []
        for item in json.load(sys.stdin):
            plain = codec.decode_one(Payload.FromString(base64.b64decode(item)))
            out.append({"plain": base64.b64encode(plain.SerializeToString()).decode(),
                        "sealed": base64.b64encode(codec.encode_one(plain).SerializeToString()).decode()})
        print(json.dumps(out))
        sys.exit(0)
    if "--solve" in sys.argv:
        # One problem from stdin, the reply on stdout: for the bench and for checking a model by hand.
        import json

        print(json.dumps(solve(json.load(sys.stdin))))
        sys.exit(0)
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
