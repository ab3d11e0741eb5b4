"""Suite-wide test settings.

Hypothesis runs without a per-example deadline and without its example database: speed
targets live in ``benchmarks/``, never in timed unit tests, and a shared 2-core CI machine
must not turn a slow example into a failure. Each test keeps its own ``max_examples``.
"""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "turnframe",
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("turnframe")
