"""A validation report: what ``warpsim validate`` prints, as Python objects.

Every number comes from the command's own report (its JSON); ``to_html()`` is
the command's ``--format html`` page, which a notebook shows inline.
"""

import json


class InconsistentSampler(AssertionError):
    """A report found the draws inconsistent with the law; ``.report`` holds it."""

    def __init__(self, report):
        self.report = report
        super().__init__(report.text())


class Check:
    """One check of a report.

    ``name``, ``outcome`` ("pass", "fail", "skipped"), ``detail`` (in words), and
    for the statistical checks ``statistic``, ``df``, ``p`` (the p-value),
    ``alpha`` (its level), ``n`` (the sample size) and ``rules_out`` (the
    smallest biases a pass rules out with power 0.9: total variation,
    Kolmogorov distance, a category's relative error, a mean shift; absent
    ones are None). ``test`` is the whole JSON record.
    """

    def __init__(self, record):
        self.name = record["name"]
        self.outcome = record["outcome"]
        self.detail = record["detail"]
        self.test = record.get("test")
        t = self.test or {}
        statistic = t.get("statistic")
        self.statistic = float("inf") if statistic == "inf" else statistic
        self.df = t.get("df")
        self.p = t.get("p_value")
        self.alpha = t.get("alpha")
        self.n = t.get("sample_size")
        bias = t.get("detectable_bias") or {}
        self.rules_out = {k: bias.get(k) for k in ("total_variation", "kolmogorov_distance", "max_relative_error", "mean_shift")}

    @property
    def passed(self):
        return self.outcome != "fail"

    def __repr__(self):
        p = "" if self.p is None else f", p={self.p:.3g}"
        return f"Check({self.name!r}, {self.outcome}{p})"


class Report:
    """The verdict on a sampler's draws (``warpsim.validate``)."""

    def __init__(self, core):
        self._core = core
        self._json = json.loads(core.summary_json())  # the checks, subject, alpha, notes (to_json(): everything)
        self.checks = [Check(c) for c in self._json["checks"]]

    @property
    def consistent(self):
        """True when no check failed (the statistical ones together at level alpha)."""
        return self._core.consistent

    @property
    def alpha(self):
        return self._json.get("alpha")

    @property
    def subject(self):
        return self._json.get("subject")

    def failed(self):
        return [c for c in self.checks if c.outcome == "fail"]

    def check(self, name):
        """The check called ``name`` (KeyError if none)."""
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    @property
    def notes(self):
        return list(self._json.get("notes", []))

    @property
    def seconds(self):
        return self._json.get("seconds")

    def to_dict(self):
        """The whole JSON report as Python objects (laws and categories included)."""
        return json.loads(self._core.json())

    def to_json(self):
        """The command's JSON report (``warpsim validate --format json``)."""
        return self._core.json()

    def to_html(self):
        """The command's HTML page (``--format html``), self-contained."""
        return self._core.html()

    def _repr_html_(self):
        return self.to_html()

    def text(self):
        """The report the command prints on a terminal."""
        return self._core.text()

    def __str__(self):
        return self.text()

    def __repr__(self):
        verdict = "consistent" if self.consistent else "INCONSISTENT: " + ", ".join(c.name for c in self.failed())
        return f"<warpsim.Report {verdict}; {len(self.checks)} checks>"

    def __bool__(self):
        return bool(self.consistent)

    def raise_if_inconsistent(self):
        """Raises InconsistentSampler (an AssertionError, with the report) if a check failed."""
        if not self.consistent:
            raise InconsistentSampler(self)
        return self
