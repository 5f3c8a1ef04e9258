# SPDX-License-Identifier: GPL-2.0-only
"""pytest for dlnet.to_rows on dicts that are not runs (from a fuzz run): a ValueError naming
result, as for to_rows({}), never a KeyError, TypeError or AttributeError from inside.

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests/test_to_rows_input.py
"""
import pytest

import dlnet


@pytest.mark.parametrize("result, why", [
    ({"result": {}}, "no 'wall_seconds'"),
    ({"result": {"rows": []}, "config": {}}, "no 'wall_seconds'"),
    ({"result": 5, "wall_seconds": 1.0, "config": {}}, "'result' is not a dict"),
    ({"jobs": [{}]}, "'config' is not a dict of options"),
    ({"schedules": [{}], "config": None}, "'config' is not a dict of options"),
    ({"rows": [{}], "config": [1]}, "'config' is not a dict of options"),
    ({"result": {"a": 1}, "wall_seconds": 1.0, "config": "x"}, "'config' is not a dict"),
    ({"rows": [1, 2], "config": {}}, "'rows' is not a list of rows"),
    ({"rows": 5, "config": {}}, "'rows' is not a list of rows"),
    ({"jobs": [None], "config": {}}, "'jobs' is not a list of rows"),
    ({"result": {"rows": [1]}, "wall_seconds": 1.0, "config": {}}, "'rows' is not a list"),
])
def test_a_dict_that_is_not_a_run_is_refused_naming_result(result, why):
    with pytest.raises(ValueError, match=r"^result: not the dict of a dlnet run \(keys .*\): "
                                         + why):
        dlnet.to_rows(result)


@pytest.mark.parametrize("result", [None, 5])
def test_not_a_dict_is_refused_naming_result(result):
    with pytest.raises(ValueError, match="^result: expected the dict of a dlnet run, got"):
        dlnet.to_rows(result)


def test_keys_of_mixed_types_are_listed():
    with pytest.raises(ValueError, match=r"^result: not the dict of a dlnet run \(keys \[1, 'a'\]\)"):
        dlnet.to_rows({1: 2, "a": 3})
