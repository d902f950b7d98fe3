"""The CI regression gate: ``python -m harness gate --base REV [--head REV]``.

Modules: ``cases`` (what is gated, one table), ``probe`` (the benchmark process, run in a
revision's tree), ``runner`` (its environment and launch), ``trees`` (revisions as git
worktrees), ``counts`` (tier 1: callgrind instruction counts), ``walltime`` (tier 2:
alternating wall-time rounds), ``decide`` (the decision rules and stored tolerances),
``accept`` (Perf-accepted trailers), ``report`` (gate.md, gate.json), ``command`` (the
command that ties them together), ``calibrate`` (A/A runs that set the tolerances).
See docs/architecture.md and the README's "Regression gate".
"""
