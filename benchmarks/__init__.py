"""Throughput benchmarks (decisions/s and games/s, DESIGN §5)."""
