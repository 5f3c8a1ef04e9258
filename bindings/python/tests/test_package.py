# SPDX-License-Identifier: GPL-2.0-only
"""pytest for the typed package: signatures, help, records, to_rows, the stubs.

    PYTHONPATH=build/bindings/python /usr/bin/python3 -m pytest -q bindings/python/tests/test_package.py
"""
import ast
import glob
import importlib.util
import inspect
import os
import pydoc
import subprocess
import sys
import typing

import pytest

import dlnet
from dlnet import _core, experiments

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)  # bindings/python
STUB = os.path.join(PYTHON_DIR, "dlnet", "__init__.pyi")
KIND_TYPES = {"int": typing.Union[int, str], "float": typing.Union[float, str], "bool": bool,
              "text": str,
              "path": typing.Union[str, bytes, os.PathLike[str], os.PathLike[bytes]]}
FUNCTIONS = list(experiments.EXPERIMENTS)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_signature_has_every_option_typed_with_its_default(function):
    table = getattr(_core, experiments.EXPERIMENTS[function][0])()
    params = inspect.signature(getattr(dlnet, function)).parameters
    names = list(params)
    assert names[0] == "config" and names[-2:] == ["results_dir", "ns3_attributes"]
    assert names[1:-2] == [o["name"].replace("-", "_") for o in table]
    for o in table:
        p = params[o["name"].replace("-", "_")]
        assert p.kind is inspect.Parameter.KEYWORD_ONLY
        assert p.annotation == KIND_TYPES[o["kind"]], p
        assert p.default == o["default"] and type(p.default) is type(o["default"]), p


def test_collective_signature_spot_checks():
    params = inspect.signature(dlnet.run_collective).parameters
    assert params["hosts"].annotation == typing.Union[int, str] and params["hosts"].default == 8
    assert params["min_bytes"].default == 1 << 20
    assert params["functional"].annotation is bool and params["functional"].default is False
    assert params["oversubscription"].annotation == typing.Union[float, str]
    assert params["algorithm"].annotation is str and params["algorithm"].default == "ring"
    assert inspect.signature(dlnet.run_collective).return_annotation is dlnet.CollectiveRun


@pytest.mark.parametrize("function", FUNCTIONS)
def test_help_names_every_parameter_with_its_help(function):
    text = pydoc.render_doc(getattr(dlnet, function), renderer=pydoc.plaintext)
    for o in getattr(_core, experiments.EXPERIMENTS[function][0])():
        name = o["name"].replace("-", "_")
        assert name + ": " in text  # in the signature, with its type
        assert "  %s (" % name in text and o["help"] in text  # in the parameter list


def test_only_given_options_reach_the_core_and_kebab_names_work():
    # An option that does not apply is refused only when given: passing every
    # default would refuse 'hosts' on a leaf-spine.
    out = dlnet.run_traffic(topology="leaf-spine", pattern="point-to-point",
                            **{"message-bytes": "4KiB"})
    assert out["config"]["message-bytes"] == 4096
    with pytest.raises(ValueError, match="hosts"):
        dlnet.run_traffic(topology="leaf-spine", hosts=4)
    assert dlnet.run_traffic({"hosts": 2, "pattern": "point-to-point"}, hosts=3,
                             message_bytes=4096)["result"]["ranks"] == 3


@pytest.mark.parametrize("function, options, field", [
    ("run_collective", {"algorithm": "bogus"}, "algorithm"),
    ("run_collective", {"min_bytes": "12 parsecs"}, "min-bytes"),
    ("run_traffic", {"pattern": "nope"}, "pattern"),
    ("run_wafer", {"variants": "mesh,fred-z"}, "variants"),
    ("run_training", {"tp": 0}, "tp"),
    # one setting under two names, given two values: the later one won, silently
    ("run_collective", {"link_delay": "2us", "latency": "500ns"}, "latency: got '500ns'"),
    ("run_collective", {"algorithm": "omnireduce", "aggregator_placement": "colocated",
                        "sparsity_placement": "overlap"}, "sparsity-placement: got overlap"),
])
def test_bad_input_raises_value_error_naming_the_field(function, options, field):
    with pytest.raises(ValueError, match=field):
        getattr(dlnet, function)(**options)


def test_records_come_from_the_field_tables():
    tables = _core.result_fields()
    for table, fields in tables.items():
        record = getattr(dlnet, experiments.record_name(table))
        assert list(typing.get_type_hints(record)) == [f["name"] for f in fields]
        assert all(f["name"] in record.__doc__ for f in fields)
    hints = typing.get_type_hints(dlnet.CollectiveRun)
    assert hints["result"] is dlnet.CollectiveResult
    assert typing.get_type_hints(dlnet.CollectiveResult)["rows"] == typing.List[dlnet.CollectiveRow]


def assert_keys_declared(value, record):
    """Every key of a run's dict (and of its rows) is a key of its record type."""
    hints = typing.get_type_hints(record)
    assert set(value) <= set(hints), (record.__name__, sorted(set(value) - set(hints)))
    for key, kind in hints.items():
        if typing.get_origin(kind) is list and key in value and value[key]:
            (row,) = typing.get_args(kind)
            if typing.is_typeddict(row):
                assert set(value[key][0]) == set(typing.get_type_hints(row)), (record.__name__,
                                                                               key)
        elif typing.get_origin(kind) is typing.Union and key in value and value[key] is not None:
            assert_keys_declared(value[key], typing.get_args(kind)[0])  # Optional[Record]
        elif typing.is_typeddict(kind) and key in value:
            assert_keys_declared(value[key], kind)


@pytest.fixture(scope="module")
def collective():
    return dlnet.run_collective(hosts=4, min_bytes="16KiB", max_bytes="64KiB", step_factor=4)


def test_run_dicts_match_their_records(collective):
    assert_keys_declared(collective, dlnet.CollectiveRun)
    traffic = dlnet.run_traffic(hosts=2, pattern="point-to-point", message_bytes=4096)
    assert_keys_declared(traffic, dlnet.TrafficRun)
    wafer = dlnet.run_wafer(variants="mesh", scenarios="group", ranks="0,4", bytes="64KiB")
    assert_keys_declared(wafer, dlnet.WaferRun)
    sparse = dlnet.run_sparse(tensor_bytes="256KiB", densities="0.1", workers=2, rates="100Gbps")
    assert_keys_declared(sparse, dlnet.SparseRun)
    training = dlnet.run_training(topology="star", hosts=4, model="transformer", layers=2,
                                  hidden=256, heads=4, sequence=64, vocabulary=512, tp=2, dp=2)
    assert_keys_declared(training, dlnet.TrainingRun)


def test_heterogeneous_run_matches_its_record():
    out = dlnet.run_heterogeneous(model="wide-deep", episodes=20, samples_per_episode=8,
                                  population=8, generations=5, sweep=3)
    assert out["simulation"] is not None
    assert_keys_declared(out, dlnet.HeterpsRun)
    assert typing.get_type_hints(dlnet.HeterpsRun)["simulation"] == \
        typing.Optional[dlnet.HeterpsSimulation]


def test_to_rows_gives_config_and_fields_as_columns(collective):
    rows = dlnet.to_rows(collective)
    assert [r["bytes"] for r in rows] == [16384, 65536]
    for row, original in zip(rows, collective["result"]["rows"]):
        for key, value in original.items():
            assert row[key] == value
        assert row["hosts"] == 4 and row["link-rate"] == "100Gbps"
        assert row["wall_seconds"] == collective["wall_seconds"]
        # names both a config option and a result field: the config's is prefixed
        assert row["config.op"] == "allreduce" and row["op"] == "allreduce"
        assert all(not isinstance(v, (list, dict)) for k, v in row.items() if k != "config.ranks")
    traffic = dlnet.run_traffic(hosts=2, pattern="point-to-point", message_bytes=4096)
    (summary,) = dlnet.to_rows(traffic)
    assert summary["makespan_s"] == traffic["result"]["makespan_s"]
    links = dlnet.to_rows(traffic, table="links")
    assert len(links) == len(traffic["result"]["links"]) and "utilisation" in links[0]
    with pytest.raises(ValueError, match="table"):
        dlnet.to_rows(traffic, table="nope")


def load_make_stubs():
    spec = importlib.util.spec_from_file_location("make_stubs",
                                                  os.path.join(PYTHON_DIR, "make-stubs.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_stubs_are_what_the_functions_expose():
    with open(STUB, encoding="utf-8") as f:
        committed = f.read()
    assert committed == load_make_stubs().render(), (
        "bindings/python/dlnet/__init__.pyi is stale: run "
        "PYTHONPATH=build/bindings/python /usr/bin/python3 bindings/python/make-stubs.py")


def test_stub_functions_match_the_signatures():
    # independent of make-stubs.py: parse the stub and compare each function's
    # parameter names, defaults and annotations with inspect.signature
    with open(STUB, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    stubs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    namespace = dict(vars(typing), os=os, **{k: getattr(dlnet, k) for k in dlnet.__all__})
    for function in FUNCTIONS + ["to_rows"]:
        stub = stubs[function]
        sig = inspect.signature(getattr(dlnet, function))
        args = stub.args.args + stub.args.kwonlyargs
        positional = [None] * (len(stub.args.args) - len(stub.args.defaults)) + stub.args.defaults
        defaults = positional + stub.args.kw_defaults  # None: no default
        assert [a.arg for a in args] == list(sig.parameters), function
        for arg, default in zip(args, defaults):
            p = sig.parameters[arg.arg]
            if default is None:
                assert p.default is inspect.Parameter.empty, (function, arg.arg)
            else:
                assert ast.literal_eval(default) == p.default, (function, arg.arg)
            assert eval(ast.unparse(arg.annotation), namespace) == p.annotation, (function, arg.arg)
        assert eval(ast.unparse(stub.returns), namespace) == sig.return_annotation, function


def test_examples_and_the_package_pass_mypy_strict(tmp_path):
    pytest.importorskip("mypy", reason="Debian's python3-mypy (./dlnet deps installs it)")
    examples = sorted(glob.glob(os.path.join(PYTHON_DIR, "examples", "*.py")))
    assert examples
    examples.append(os.path.join(PYTHON_DIR, "dlnet", "experiments.py"))
    # run from bindings/python: mypy sees the source package (dlnet.sweeps and dlnet.plot are
    # followed and checked too) and its committed stubs
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path)] + examples,
        cwd=PYTHON_DIR, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
