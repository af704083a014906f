"""The unit registry: bits are not bytes, GB is not GiB, and it stays cheap to load."""

from __future__ import annotations

import subprocess
import sys

import pytest

from clusterplan.tools.units import UnitError, convert, parse


def test_gigabits_are_not_gilberts_and_not_gigabytes():
    # 400 Gb/s / 8 bits per byte = 50 GB/s (InfiniBand NDR's per-port rate).
    assert parse("400 Gb/s", "GB/s").to("GB/s").magnitude == pytest.approx(50.0, rel=1e-12)


def test_binary_and_decimal_prefixes_differ():
    assert convert(1, "GiB", "GB") == pytest.approx(1.073741824, rel=1e-12)  # 2**30 / 1e9
    assert convert(10, "TiB", "GB") == pytest.approx(10995.11627776, rel=1e-12)


@pytest.mark.parametrize("text", ["400 kg", "twelve", "12", ""])
def test_unreadable_or_unitless_quantities_are_refused(text):
    with pytest.raises(UnitError):
        parse(text, "GB")


def test_wrong_dimension_is_refused():
    with pytest.raises(UnitError, match="not convertible to GB/s"):
        parse("10 GB", "GB/s")


def test_listing_tools_does_not_import_pint():
    code = ("import sys; from clusterplan.tools.registry import tools; "
            "[t.schema() for t in tools().values()]; print('pint' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
