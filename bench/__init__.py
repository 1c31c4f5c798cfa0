"""Benchmark scripts, each run as ``python bench/NAME.py`` (see docs/benchmarks.md)."""
