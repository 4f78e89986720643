"""CBANA_E2E_QUICK=1, set by `make check-san` (docs/ci.md): the sanitizer
build runs each end-to-end script on its first case (first program, input,
size or level), the release build on all of them."""
import os

QUICK = os.environ.get("CBANA_E2E_QUICK", "0") == "1"


def first(cases):
    """All the cases, or the first one when QUICK."""
    cases = list(cases)
    return cases[:1] if QUICK else cases
