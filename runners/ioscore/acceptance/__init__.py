"""Acceptance tests: plans of IOR/mdtest command lines, their results, targets and reports.

* ``results``: acceptance result.json -> typed tests, statistics, ``evaluate(targets)``.
* ``targets``: "write >= 700 GB/s" -> ``Target`` (strict units).
"""
