# SPDX-License-Identifier: GPL-2.0-only
"""A value of the wrong Python type: dlnet.OptionTypeError, which is a TypeError
(Python's idiom) and a ValueError (dlnet's contract: bad input is a ValueError),
with a message naming the field. Python's own signature errors stay TypeError."""
import pytest

import dlnet

EXPERIMENTS = ["run_traffic", "run_collective", "run_wafer", "run_sparse", "run_training",
               "schedule", "run_heterogeneous"]


def test_the_class_is_both_and_exported():
    assert issubclass(dlnet.OptionTypeError, TypeError)
    assert issubclass(dlnet.OptionTypeError, ValueError)
    assert "OptionTypeError" in dlnet.__all__
    assert dlnet.OptionTypeError is dlnet._core.OptionTypeError


def raised(call):
    with pytest.raises(dlnet.OptionTypeError) as info:
        call()
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
    return str(info.value)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: dlnet.run_collective(ranks=[1]), "ranks: expected str, int, float or bool, got list"),
        (lambda: dlnet.run_collective(ranks=None), "ranks: expected str, int, float or bool, got NoneType"),
        (lambda: dlnet.run_traffic(hosts={2}), "hosts: expected str, int, float or bool, got set"),
        (lambda: dlnet.run_traffic({"hosts": [2]}), "hosts: expected str, int, float or bool, got list"),
        (lambda: dlnet.run_collective({1: "star"}), "config: option names must be str, got 1"),
        (lambda: dlnet.run_traffic(5), "config: expected a dict of options (or None), got int"),
        (lambda: dlnet.run_traffic(["hosts"]), "config: expected a dict of options (or None), got list"),
        (lambda: dlnet.run_collective(timeline=123),
         "timeline: expected a str, bytes or os.PathLike file, got int"),
        (lambda: dlnet.run_traffic(results_dir=42),
         "results_dir: expected a str, bytes or os.PathLike folder, got int"),
        (lambda: dlnet.run_traffic(ns3_attributes=["x"]),
         "ns3_attributes: expected a dict {'ns3::Type::Attribute': value}, got list"),
        (lambda: dlnet.run_traffic(ns3_attributes={1: "1us"}), "ns3_attributes: names must be str, got 1"),
        (lambda: dlnet.run_traffic(ns3_attributes={"ns3::FabricNetDevice::IngressLatency": None}),
         "ns3::FabricNetDevice::IngressLatency: expected str, int, float or bool, got NoneType"),
        (lambda: dlnet.run_wafer(variants=["mesh", "fred-d"]),
         "variants: expected str, int, float or bool, got list"),
    ],
)
def test_wrong_type_is_type_and_value_error_naming_the_field(call, message):
    assert raised(call) == message


@pytest.mark.parametrize("function", EXPERIMENTS)
def test_every_experiment_function(function):
    # its first option, given a list: refused before anything runs
    option = dlnet.experiments.python_name(dlnet.experiments.options_of(function)[0]["name"])
    message = raised(lambda: getattr(dlnet, function)(**{option: [1]}))
    assert message.startswith(option + ": expected str, int, float or bool, got list")


def test_except_value_error_catches_it():
    try:
        dlnet.run_collective(ranks=[1])
    except ValueError as e:  # the contract's clause
        assert "ranks" in str(e)
    else:
        pytest.fail("no ValueError")


def test_signature_errors_stay_type_error():
    # Python's own: too many positional arguments is a TypeError, not an option's value
    with pytest.raises(TypeError) as info:
        dlnet.run_traffic({}, {})
    assert not isinstance(info.value, ValueError)
