"""The results store: every run the harness makes, from every machine, in one database
(docs/service.md). ``schema`` is the one shape of a run and its results, checked at the
edge; ``tables`` and ``migrations`` lay it out in SQL (SQLite at results/results.db by
default, any SQLAlchemy URL, PostgreSQL for a team); ``database`` opens a store and
upgrades it; ``write`` stores a run in one transaction, once; ``read`` gives runs back
as they were submitted; ``files`` turns what the harness writes (asv results, circuit
and evals JSON, gate.json) into runs; ``transfer`` exports and imports a whole store;
``tokens`` are who may write.
"""
