"""The command line of ``python -m harness predict`` (harness.distributed.predict runs it),
apart from the command so that the harness's parser is made without loading the
simulators."""

#: The link when none is described: 100 Gb/s and 2 us, an InfiniBand EDR-class network.
LINK_GBPS = 100.0
LATENCY_US = 2.0


def predict_arguments(p):
    """The arguments of ``python -m harness predict`` on the parser ``p``."""
    p.add_argument("circuit", metavar="SOURCE", help="an .qasm file, mqt:NAME or lib:NAME")
    p.add_argument("--qubits", type=int, nargs="+",
                   help="circuit size for mqt: and lib: (several: a table, one row each)")
    ranks = p.add_mutually_exclusive_group(required=True)
    ranks.add_argument("--ranks", type=int, help="ranks (a power of two)")
    ranks.add_argument("--ranks-per-node", type=int,
                       help="ranks on each node (a power of two): R = this times the nodes")
    p.add_argument("--nodes", type=int, nargs="+", default=[1],
                   help="nodes the ranks are spread over, R/K to a node, in order (default "
                        "1; several: a table, one column each)")
    p.add_argument("--link-gbps", type=float, default=LINK_GBPS,
                   help=f"each node's link to the others, Gb/s (default {LINK_GBPS:g})")
    p.add_argument("--latency-us", type=float, default=LATENCY_US,
                   help=f"a message's latency over the link, us (default {LATENCY_US:g})")
    p.add_argument("--precision", default="complex128")
    p.add_argument("--model", action="store_true",
                   help="price every rank's compute by the cost model at a rate measured "
                        "on small slices (2^20), as for slices too large to run: quick, low")
    p.add_argument("--json", help="write the prediction as JSON here")
    return p
