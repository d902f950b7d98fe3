"""Every asv benchmark that code outside its suite refers to (tables, reports, the
dashboard's screenshot, the gate's history), named once. asv names a benchmark
``<module>.<Class>.<method>`` after where it is defined in ``harness/benchmarks/``;
``tests/harness/test_ids.py`` checks that each name here still points at a benchmark."""

# state vector
GATE_TIME = "statevector_gates.Gate.time_gate"
GATE_CALL = "statevector_gates.GateCall.time_call"
GATE64_TIME = "statevector_gates.GateComplex64.time_gate"
CIRCUIT_TIME = "statevector_circuits.Circuit.time_circuit"
CIRCUIT64_TIME = "statevector_circuits.CircuitComplex64.time_circuit"
THREADS_TIME = "statevector_threads.GateThreads.time_gate"
COPY_BANDWIDTH = "machine.MemoryBandwidth.track_copy_bandwidth"
INPLACE_BANDWIDTH = "machine.MemoryBandwidth.track_inplace_bandwidth"
LEVEL_BANDWIDTH = "machine.LevelBandwidth.track_inplace_bandwidth"
FUSED_TIME = "statevector_fusion.FusedCircuit.time_circuit"
FUSED64_TIME = "statevector_fusion.FusedCircuitComplex64.time_circuit"
FUSED_PASSES = "statevector_fusion.FusedPasses.track_passes"
FUSED_PROGRAM = "statevector_fusion.FusedPasses.track_program"
FUSED_ROOFLINE = "statevector_fusion.FusedRoofline.track_roofline"
FUSED_CHOSEN = "statevector_fusion.FusedRoofline.track_chosen_width"
DISTRIBUTED_TIME = "statevector_distributed.Distributed.track_seconds"
DISTRIBUTED_MEDIAN = "statevector_distributed.Distributed.track_seconds_median"
DISTRIBUTED_COMM = "statevector_distributed.Distributed.track_comm_share"
DISTRIBUTED_BYTES = "statevector_distributed.Distributed.track_bytes_per_rank"

# AD
AD_GRADIENT = "ad_problems.Gradient.time_gradient"
AD_SLOWDOWN = "ad_problems.Gradient.track_slowdown"
AD_VS_MANUAL = "ad_problems.Gradient.track_vs_manual"
AD_OBJECTIVE = "ad_problems.Objective.time_objective"
AD_COMPILE = "ad_problems.Compile.track_compile_seconds"
AD_CHUNK = "ad_chunks.ForwardChunk.time_gradient"
EVAL_GRADIENT = "ad_evals.EvalGradient.time_gradient"
EVAL_JACOBIAN = "ad_evals.EvalJacobian.time_jacobian"
EVAL_NESTED = "ad_evals.EvalNested.time_nested"
EVAL_OBJECTIVE = "ad_evals.EvalObjective.time_objective"
EVAL_VS_OBJECTIVE = "ad_evals.EvalRatios.track_vs_objective"
EVAL_VS_MANUAL = "ad_evals.EvalRatios.track_vs_manual"
EVAL_MEMORY = "ad_evals.EvalMemory.track_peak_mib"
EVAL_OBJECTIVE_MEMORY = "ad_evals.EvalObjectiveMemory.track_peak_mib"

# variational circuits
VARIATIONAL_GRADIENT = "variational_gradients.Gradient.time_gradient"
VARIATIONAL_RATIO = "variational_gradients.Gradient.track_ratio"
VARIATIONAL_MEMORY = "variational_gradients.Gradient.track_peak_mib"
VARIATIONAL_ENERGY = "variational_gradients.Energy.time_energy"

# the regression gate's instruction counts, as history

ALL = {name: value for name, value in globals().items() if name.isupper() and name != "ALL"}
