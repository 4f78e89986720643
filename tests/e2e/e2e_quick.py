"""CBANA_E2E_QUICK=1, set by `make check-san` (docs/ci.md): the sanitizer
build runs each end-to-end script on its first case (first program, input,
size or level), the release build on all of them."""
import os

# taken out of the environment, so that the programs the tests run see the
# release pass's (checks.sh says why)
QUICK = os.environ.pop("CBANA_E2E_QUICK", "0") == "1"


def first(cases):
    """All the cases, or the first one when QUICK."""
    cases = list(cases)
    return cases[:1] if QUICK else cases
