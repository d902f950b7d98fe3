"""The distributed backend: its exchange plan emulated rank by rank without MPI
(test_plan), and the backend itself under mpiexec at 2, 4 and 8 ranks (test_mpi)."""
