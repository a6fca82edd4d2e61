"""Benchmarks: ``python -m bench`` (or ``make bench``) runs them and writes bench/results/."""
