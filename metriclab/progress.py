"""Progress of long fits in scikit-learn's verbose style: `verbose=0` prints nothing; `verbose=1`
prints `[Name]` lines on stdout — the stages of a fit with their times, the objective at every
evaluation of an iterative fit (as scikit-learn's NCA prints it) and the training time."""

from __future__ import annotations

import time


class FitLog:
    """Progress of an iterative fit in scikit-learn's verbose style (as its NCA prints it):
    `[Name]`, a header, one line per evaluation of the loss, and the training time."""

    HEADER = "{:>10} {:>20} {:>10}".format("Iteration", "Objective Value", "Time(s)")

    def __init__(self, name: str, verbose):
        self.name = name
        self.verbose = int(verbose or 0)
        self.started = time.time()
        self.opened = False

    def say(self, text: str) -> None:
        if self.verbose:
            print(f"[{self.name}] {text}", flush=True)

    def line(self, n_iter: int, value: float, seconds: float) -> None:
        """One evaluation of the objective (the header before the first)."""
        if not self.verbose:
            return
        if not self.opened:
            self.opened = True
            print(f"[{self.name}]")
            print(f"[{self.name}] {self.HEADER}\n[{self.name}] {'-' * len(self.HEADER)}")
        print(f"[{self.name}] {n_iter:>10} {value:>20.6e} {seconds:>10.2f}", flush=True)

    def done(self) -> None:
        self.say(f"Training took {time.time() - self.started:8.2f}s.")

    def progress(self):
        """A `progress(done, total, message)` callable that prints a line at every tenth of the
        work (None when silent), for the fits that report their stages that way."""
        if not self.verbose:
            return None
        last = [-1]

        def report(done: int, total: int, message: str = "") -> None:
            tenth = int(10 * done / max(total, 1))
            if tenth != last[0] or done >= total:
                last[0] = tenth
                self.say(f"{done}/{total} {message}")

        return report

    def stage(self, name: str):
        """A context that prints "name... done in x.xxs" around a stage of the fit."""
        return _Stage(self, name)


class _Stage:
    def __init__(self, log: FitLog, name: str):
        self.log, self.name = log, name

    def __enter__(self):
        self.started = time.time()
        return self

    def __exit__(self, *exc):
        if exc[0] is None:
            self.log.say(f"{self.name}... done in {time.time() - self.started:5.2f}s")
        return False
