"""The comparisons the service makes of what the store holds, each with its uncertainty
and its ties, by the rules ``harness circuit`` ranks with (harness.ranking): two runs
result by result (``pairs``), one benchmark and backend over commits with the changes in
it (``history``, ``changes``), who is fastest on one machine and every machine's backends
as ratios to its own baseline (``rankings``). Pure functions of the rows
harness.store.queries reads, so that they are tested without a database."""
