"""Who solves next: the solver worker's CP-SAT slots, shared fairly between callers.

Temporal hands the worker up to `queue` solve requests at once; only `slots` of them run (each
CP-SAT search holds its threads and memory for up to its whole time limit). The others wait here,
and this module decides the order, so that:

- a short job (time limit at most `short_seconds`) never waits behind a long one: long jobs may
  hold at most `long_slots` of the slots (by default all but one), so one slot is always left to
  short jobs, and a short job waits at most for the short jobs ahead of it;
- no caller crowds out the others: jobs are taken in round-robin order between callers (start-time
  fair queueing with a unit cost per job: a caller's next job is tagged one round after its
  previous one, and never earlier than the round now being served), ties by arrival; so a new
  caller's job waits for at most one job of each other caller with work queued, however many
  jobs those callers have sent;
- each waiting job learns its place: `ahead` is the number of jobs that will be given a slot before
  it if nothing else arrives, recomputed whenever the queue changes.

A caller is whatever key the job carries (the solver worker uses the activity's Temporal fairness
key, set by the workflow). It is a claim, not an authenticated identity: anyone who can start
workflows can name any caller. What does not depend on it: the slot kept for short jobs, and the
bound on every job's time (the time limit is capped before it gets here).

Pure asyncio, no Temporal and no OR-Tools: the worker's activity calls `acquire`/`release`, and the
unit tests drive it directly (solver/test_slots.py).
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Callable, Optional


@dataclass(eq=False)
class Job:
    caller: str
    long: bool
    #: Called with the job's state whenever it changes: ("waiting", ahead) or ("solving", admitted).
    report: Callable[[str, int], None] = lambda state, n: None
    seq: int = 0
    #: The round-robin round it is served in (see SolverSlots._tag).
    tag: int = 0
    granted: Optional[asyncio.Future] = field(default=None, repr=False)
    ahead: Optional[int] = None
    #: The admission order on this worker (1 for the first job ever given a slot): for tests and logs.
    admitted: Optional[int] = None
    #: Whether it ever had to wait for a slot.
    queued: bool = False


class SolverSlots:
    def __init__(self, slots: int, long_slots: Optional[int] = None) -> None:
        if slots < 1:
            raise ValueError("slots must be at least 1")
        self.slots = slots
        # With one slot nothing can be kept aside; with more, long jobs leave at least one free.
        self.long_slots = max(1, min(slots, long_slots if long_slots is not None else slots - 1))
        self.waiting: list[Job] = []
        self.running: set[Job] = set()
        self._seq = itertools.count(1)
        self._admissions = itertools.count(1)
        #: The round now being served (the tag of the last job given a slot).
        self._round = 0
        #: Each caller's last tag; forgotten once the caller has nothing queued or running.
        self._last_tag: dict[str, int] = {}

    # -- the activity's side -------------------------------------------------------------------

    async def acquire(self, job: Job) -> None:
        """Waits until the job may solve. Cancelled while waiting, it leaves the queue."""
        job.seq = next(self._seq)
        job.tag = self._tag(job.caller)
        job.granted = asyncio.get_running_loop().create_future()
        self.waiting.append(job)
        self._dispatch()
        try:
            await asyncio.shield(job.granted)
        except asyncio.CancelledError:
            if job in self.waiting:
                self.waiting.remove(job)
                self._dispatch()
            elif job in self.running:
                # Granted in the same turn as the cancellation: give the slot back.
                self.release(job)
            raise

    def release(self, job: Job) -> None:
        if job in self.running:
            self.running.discard(job)
            self._dispatch()

    def _tag(self, caller: str) -> int:
        tag = max(self._round, self._last_tag.get(caller, 0)) + 1
        self._last_tag[caller] = tag
        return tag

    def _forget_idle_callers(self) -> None:
        # Bounded memory however many callers come and go; an idle caller gains no credit anyway.
        busy = {j.caller for j in self.waiting} | {j.caller for j in self.running}
        for caller in [c for c in self._last_tag if c not in busy]:
            del self._last_tag[caller]

    # -- the order -----------------------------------------------------------------------------

    def _running_long(self) -> int:
        return sum(1 for j in self.running if j.long)

    def _order(self) -> list[Job]:
        """Waiting jobs in the order they would be given slots if nothing else arrived: by round,
        then arrival. (A long job cannot take a slot while `long_slots` long jobs run, so a short
        job behind it may be served first: see `_dispatch`.)"""
        return sorted(self.waiting, key=lambda j: (j.tag, j.seq))

    def _dispatch(self) -> None:
        while len(self.running) < self.slots:
            running_long = self._running_long()
            nxt = next((j for j in self._order() if not (j.long and running_long >= self.long_slots)), None)
            if nxt is None:
                break
            self.waiting.remove(nxt)
            self.running.add(nxt)
            self._round = max(self._round, nxt.tag)
            nxt.admitted = next(self._admissions)
            nxt.ahead = None
            if nxt.granted is not None and not nxt.granted.done():
                nxt.granted.set_result(None)
            nxt.report("solving", nxt.admitted)
        self._forget_idle_callers()
        self._report_positions()

    def _report_positions(self) -> None:
        order = self._order()
        short_ahead = 0
        all_ahead = 0
        for j in order:
            # A short job is not held up by long jobs ahead of it once the long slots are full:
            # they cannot take the slot it waits for. A long job waits for everyone ahead.
            ahead = all_ahead if j.long else short_ahead
            j.queued = True
            if j.ahead != ahead:
                j.ahead = ahead
                j.report("waiting", ahead)
            all_ahead += 1
            if not j.long or self._running_long() < self.long_slots:
                short_ahead += 1

    def snapshot(self) -> dict[str, int]:
        return {"running": len(self.running), "waiting": len(self.waiting), "slots": self.slots,
                "longSlots": self.long_slots, "runningLong": self._running_long()}
