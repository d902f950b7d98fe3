"""The regression gate's tier-1 cases as asv history: instructions per call, counted by
callgrind (``harness.gate.counts``), so that ``make bench`` records them, the dashboard
draws them over commits and asv's regressions page works on a series without noise.

One callgrind run counts every case of the profile, in ``setup_cache``; each
``track_instructions`` then reports one case. A case this checkout lacks, or every case
without valgrind, is skipped with the reason; a case that fails or gives a wrong result
fails."""

from harness import profiles
from harness.errors import ValidationError
from harness.gate import cases, counts
from harness.gate.runner import GateError
from harness.results import ROOT

CASES = cases.select(profiles.current().get("gate_cases"), tiers=(1,))


class Instructions:
    params = [CASES]
    param_names = ["case"]
    timeout = 1800

    def setup_cache(self):
        counted = {}
        try:
            counted, skipped = counts.count_checkout(ROOT, CASES, ROOT / ".gate")
        except GateError as exc:
            skipped = dict.fromkeys(CASES, {"status": "missing", "reason": str(exc)})
        return {"counted": counted, "skipped": skipped}

    def setup(self, cache, case):
        if case in cache["counted"]:
            return
        status = cache["skipped"].get(case, {"status": "missing", "reason": "not counted"})
        if status["status"] == "failed":
            raise ValidationError(f"{case}: {status['reason']}")
        raise NotImplementedError(status["reason"])

    def track_instructions(self, cache, case):
        return cache["counted"][case]

    track_instructions.unit = "instructions"
