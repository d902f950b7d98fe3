"""Example qsim-ad-bench plugin: see simulator.py and complex_step.py."""
