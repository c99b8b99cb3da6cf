"""Extreme values for scripts/contract-test (issue 49), loaded as SCHEMATHESIS_HOOKS.

schemathesis's own strategies never send a date-time past year 9999 or an integer at 2**63, and a
date past year ~294,000 once ended aasad from any read token. So:
- every `format: date-time` is drawn, half the time, from six-digit, signed, zero and negative
  years and the ends of the range (the rest ordinary RFC 3339 instants, years 0001-9999);
- before a request goes out, each integer in its query, path and JSON body is, a quarter of the
  time, replaced by one at or past a machine bound (+-2**63, +-2**31), chosen from the case's own
  hash, so a seed replays the same requests;
- likewise a `cursor` is, a quarter of the time, one shaped as the server makes them (base64 of the
  list's letter and its key) whose key is one of those integers: past every key column's range
  (revision numbers are `integer`, event IDs `bigint`), which was 500 on the revision lists.
A 400 or 422 for those is the expected answer; a 5xx or no answer fails the run as any other."""
import base64
import hashlib
import random
from datetime import datetime, timezone

import schemathesis
from hypothesis import strategies as st

EXTREME_DATES = [
    "300000-01-01T00:00:00Z",
    "+300000-01-01T00:00:00Z",
    "-000001-01-01T00:00:00Z",
    "-1",
    "0000-01-01T00:00:00Z",
    "10000-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
    "0001-01-01T00:00:00Z",
    "294277-01-01T00:00:00Z",
    "1970-01-01T00:00:00.000000001Z",
]
EXTREME_INTEGERS = [2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**31, -(2**31) - 1, 2**64]

ordinary_dates = st.datetimes(
    min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59), timezones=st.just(timezone.utc)
).map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ"))
schemathesis.openapi.format("date-time", st.one_of(st.sampled_from(EXTREME_DATES), ordinary_dates))


def _extreme(value, rng):
    """value with some of its integers (not booleans) replaced by extremes."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return rng.choice(EXTREME_INTEGERS) if rng.random() < 0.25 else value
    if isinstance(value, dict):
        return {k: _extreme(v, rng) for k, v in value.items()}
    if isinstance(value, list):
        return [_extreme(v, rng) for v in value]
    return value


# The letters of Sources/AASAServer/API/PageCursor.swift's lists: audit, revisions, domains, teams.
CURSOR_LISTS = "erdt"


def _extreme_cursor(query, rng):
    if not isinstance(query, dict) or "cursor" not in query or rng.random() >= 0.25:
        return query
    key = f"{rng.choice(CURSOR_LISTS)}{rng.choice(EXTREME_INTEGERS)}"
    return {**query, "cursor": base64.b64encode(key.encode()).decode().rstrip("=")}


@schemathesis.hook
def before_call(ctx, case, kwargs):
    rng = random.Random(hashlib.sha256(repr((case.method, case.path, case.query, case.body)).encode()).digest())
    if case.query:
        case.query = _extreme_cursor(_extreme(case.query, rng), rng)
    if case.path_parameters:
        case.path_parameters = _extreme(case.path_parameters, rng)
    if isinstance(case.body, (dict, list)):
        case.body = _extreme(case.body, rng)
