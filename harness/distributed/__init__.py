"""The distributed side of the harness: ``harness circuit --ranks R`` starts an MPI job of
itself (:mod:`.launch`), whose ranks run the backends that split a state over them and
report from rank 0 (:mod:`.job`); :mod:`.command` is the command line's part
(docs/distributed.md)."""
