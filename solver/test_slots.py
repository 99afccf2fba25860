"""Unit tests of the solver worker's sharing rules (slots.py) and request limits (worker.py).

Run: .tools/solver-venv/bin/python -m unittest discover -s solver -p 'test_*.py'
(test/solver-slots.test.ts runs them with the rest of the suite). No Temporal server needed.
"""

from __future__ import annotations

import asyncio
import math
import os
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slots import Job, SolverSlots  # noqa: E402
import worker  # noqa: E402


class Recorder:
    """A job's reports, in order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.reports: list[tuple[str, int]] = []

    def __call__(self, state: str, n: int) -> None:
        self.reports.append((state, n))

    @property
    def last(self) -> tuple[str, int]:
        return self.reports[-1]


def run(coro):
    return asyncio.run(coro)


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


class Harness:
    """Jobs submitted to one SolverSlots, each holding its slot until finished by the test."""

    def __init__(self, slots: SolverSlots) -> None:
        self.slots = slots
        self.jobs: dict[str, Job] = {}
        self.tasks: dict[str, asyncio.Task] = {}
        self.recorders: dict[str, Recorder] = {}
        self.admitted: list[str] = []

    async def submit(self, name: str, caller: str, long: bool) -> None:
        rec = Recorder(name)
        job = Job(caller=caller, long=long, report=rec)
        self.jobs[name], self.recorders[name] = job, rec

        async def hold() -> None:
            await self.slots.acquire(job)
            self.admitted.append(name)
            await asyncio.Event().wait()  # held until cancelled (finish)

        self.tasks[name] = asyncio.get_running_loop().create_task(hold())
        await settle()

    async def finish(self, name: str) -> None:
        self.tasks[name].cancel()
        try:
            await self.tasks[name]
        except asyncio.CancelledError:
            pass
        self.slots.release(self.jobs[name])
        await settle()

    def state(self, name: str) -> tuple[str, int]:
        return self.recorders[name].last


class SlotsTest(unittest.TestCase):
    def test_two_long_jobs_of_one_caller_leave_a_slot_to_a_short_one(self):
        async def scenario():
            h = Harness(SolverSlots(2))
            await h.submit("a1", "caller-a", long=True)
            await h.submit("a2", "caller-a", long=True)
            self.assertEqual(h.admitted, ["a1"])
            # a2 waits although a slot is free: it is kept for short jobs.
            self.assertEqual(h.state("a2"), ("waiting", 0))
            await h.submit("c", "caller-c", long=False)
            self.assertEqual(h.admitted, ["a1", "c"])
            self.assertEqual(h.state("c")[0], "solving")
            self.assertEqual(h.state("a2")[0], "waiting")
            self.assertEqual((h.jobs["c"].queued, h.jobs["a2"].queued), (False, True))
            await h.finish("a1")
            self.assertEqual(h.admitted, ["a1", "c", "a2"])

        run(scenario())

    def test_short_jobs_never_wait_behind_long_ones_however_many(self):
        async def scenario():
            h = Harness(SolverSlots(2))
            for i in range(20):
                await h.submit(f"long{i}", f"caller-{i}", long=True)
            await h.submit("short", "victim", long=False)
            self.assertIn("short", h.admitted)
            self.assertEqual(len(h.admitted), 2)

        run(scenario())

    def test_round_robin_between_callers(self):
        async def scenario():
            h = Harness(SolverSlots(1))
            await h.submit("x0", "x", long=False)  # runs
            for i in range(1, 4):
                await h.submit(f"x{i}", "x", long=False)
            await h.submit("y1", "y", long=False)
            await h.submit("z1", "z", long=False)
            # y and z arrived after x's three: they wait for x's next one only, not all of them.
            self.assertEqual(h.state("x1"), ("waiting", 0))
            self.assertEqual(h.state("y1"), ("waiting", 1))
            self.assertEqual(h.state("z1"), ("waiting", 2))
            self.assertEqual(h.state("x2"), ("waiting", 3))
            self.assertEqual(h.state("x3"), ("waiting", 4))
            for name in ["x0", "x1", "y1", "z1", "x2"]:
                await h.finish(name)
            self.assertEqual(h.admitted, ["x0", "x1", "y1", "z1", "x2", "x3"])

        run(scenario())

    def test_many_callers_each_wait_for_at_most_one_job_per_other_caller(self):
        async def scenario():
            h = Harness(SolverSlots(2))
            # One caller floods the queue first, then 50 others send one job each.
            for i in range(30):
                await h.submit(f"flood{i}", "flooder", long=False)
            for i in range(50):
                await h.submit(f"c{i}", f"caller-{i}", long=False)
            # Each newcomer waits for the flooder's next job and the newcomers before it; the
            # flooder's other 27 jobs come after all of them.
            self.assertEqual(h.state("c0"), ("waiting", 1))
            self.assertEqual(h.state("c49"), ("waiting", 50))
            self.assertEqual(h.state("flood3"), ("waiting", 51))
            # A caller that comes back after being idle gains no credit: it queues in the round now served.
            for name in ["flood0", "flood1", "flood2", "c0"]:
                await h.finish(name)
            await h.submit("flood-late", "flooder", long=False)
            self.assertGreater(h.state("flood-late")[1], 40)

        run(scenario())

    def test_callers_that_left_are_forgotten(self):
        async def scenario():
            h = Harness(SolverSlots(2))
            for i in range(200):
                await h.submit(f"j{i}", f"caller-{i}", long=False)
                await h.finish(f"j{i}")
            self.assertLessEqual(len(h.slots._last_tag), 2)

        run(scenario())

    def test_cancelled_waiting_job_leaves_the_queue_and_the_others_move_up(self):
        async def scenario():
            h = Harness(SolverSlots(1))
            await h.submit("r", "r", long=False)
            await h.submit("w1", "a", long=False)
            await h.submit("w2", "b", long=False)
            self.assertEqual(h.state("w2"), ("waiting", 1))
            await h.finish("w1")  # cancelled while waiting
            self.assertEqual(h.state("w2"), ("waiting", 0))
            self.assertEqual(h.slots.snapshot()["waiting"], 1)
            await h.finish("r")
            self.assertEqual(h.admitted, ["r", "w2"])
            self.assertEqual(h.slots.snapshot()["running"], 1)

        run(scenario())

    def test_one_slot_keeps_nothing_aside(self):
        self.assertEqual(SolverSlots(1).long_slots, 1)
        self.assertEqual(SolverSlots(4).long_slots, 3)
        self.assertEqual(SolverSlots(4, long_slots=9).long_slots, 4)
        with self.assertRaises(ValueError):
            SolverSlots(0)


class LimitsTest(unittest.TestCase):
    def test_time_limit_is_capped_and_refuses_what_is_not_a_positive_number(self):
        self.assertEqual(worker.time_limit({"timeLimitSeconds": 5}, 30), 5)
        self.assertEqual(worker.time_limit({"timeLimitSeconds": 600}, 30), 30)
        self.assertEqual(worker.time_limit({"timeLimitSeconds": 1e308}, 30), 30)
        self.assertEqual(worker.time_limit({}, 30), 30)
        for bad in [math.nan, math.inf, -math.inf, -1, 0, "10", True, [], {}]:
            with self.subTest(bad=bad), self.assertRaises(worker.ApplicationError) as raised:
                worker.time_limit({"timeLimitSeconds": bad}, 30)
            self.assertTrue(raised.exception.non_retryable)

    def test_search_threads_never_exceed_the_setting(self):
        self.assertEqual(worker.search_threads({"workers": 1000}, 2), 2)
        self.assertEqual(worker.search_threads({"workers": 1}, 2), 1)
        self.assertEqual(worker.search_threads({}, 2), 2)
        for bad in [0, -3, 1.5, "8", True, math.nan]:
            with self.subTest(bad=bad), self.assertRaises(worker.ApplicationError):
                worker.search_threads({"workers": bad}, 2)

    def test_settings_are_checked(self):
        with mock.patch.dict(os.environ, {"SOLVER_MAX_CONCURRENT": "3"}, clear=False):
            s = worker.Settings.from_env()
            self.assertEqual((s.slots, s.long_slots), (3, 2))
        for name, value in [("SOLVER_TIME_LIMIT_SECONDS", "nan"), ("SOLVER_TIME_LIMIT_SECONDS", "-1"),
                            ("SOLVER_MAX_CONCURRENT", "0"), ("SOLVER_MAX_CONCURRENT", "2.5"),
                            ("SOLVER_LONG_SLOTS", "3"), ("SOLVER_QUEUE", "lots")]:
            with self.subTest(name=name, value=value), mock.patch.dict(os.environ, {name: value}, clear=False):
                with self.assertRaises(worker.SettingError) as raised:
                    worker.Settings.from_env()
                self.assertIn(name, str(raised.exception))

    def test_explaining_an_infeasible_instance_stays_within_the_same_time_again(self):
        # 12 jobs on one machine, each due too early for all to fit: infeasible, with a core to minimise.
        problem = {
            "jobs": [{"id": f"j{i}", "tasks": [{"step": "cut", "duration": 10, "uses": [{"resource": "saw", "units": 1}]}],
                      "due": 15 + i} for i in range(12)],
            "resources": [{"name": "saw", "quantity": 1}], "horizon": 1000, "dueDates": "hard",
            "objective": {"solved": "makespan"}, "timeLimitSeconds": 0.5,
        }
        limits: list[float] = []
        starts: list[float] = []
        ends: list[float] = []

        class Counting(worker.Stopper):
            def solve(self, solver, model):
                limits.append(solver.parameters.max_time_in_seconds)
                starts.append(worker.time.monotonic())
                try:
                    return super().solve(solver, model)
                finally:
                    ends.append(worker.time.monotonic())

        settings = worker.Settings(cap=30, threads=1, slots=1, long_slots=1, short_seconds=10, queue=0)
        reply = worker.solve(problem, settings, Counting())
        self.assertEqual(reply["status"], "infeasible")
        self.assertGreater(len(limits), 2)
        # The search itself gets the limit; every search after it is set to end within one more
        # limit from the end of the first (a bound on what each is allowed, not a measured speed).
        self.assertLessEqual(limits[0], 0.5)
        for start, limit in zip(starts[1:], limits[1:]):
            self.assertLessEqual(start + limit, ends[0] + 0.5 + 0.05)

    def test_a_stopped_search_starts_nothing_more(self):
        stopper = worker.Stopper()
        stopper.stop()
        problem = {"jobs": [{"id": "j", "tasks": [{"step": "s", "duration": 1, "uses": []}]}], "resources": [],
                   "horizon": 10, "objective": {"solved": "makespan"}}
        settings = worker.Settings(cap=30, threads=1, slots=1, long_slots=1, short_seconds=10, queue=0)
        with self.assertRaises(worker.Stopped):
            worker.solve(problem, settings, stopper)


if __name__ == "__main__":
    unittest.main()
