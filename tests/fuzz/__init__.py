"""Differential fuzzing of hclbuild: random programs (stages.programs), evaluated by the fuzzer's
own numpy model (program.evaluate), built by hcl.build (LLVM) and simulated by the project flow's
csim (differential.run_program). bench/fuzz.py runs thousands; test_fuzz_suite.py a bounded few."""
