# SPDX-License-Identifier: GPL-2.0-only
"""Inputs a fuzz run found answered with an exception other than ValueError, a
silent result or a misnamed field: each is now a ValueError naming the option."""
import pytest

import dlnet


@pytest.mark.parametrize(
    "function, options, message",
    [
        # one rank: time 0 and bandwidths reported as 0 GB/s
        (dlnet.run_collective, dict(ranks="3", min_bytes="64KiB", max_bytes="64KiB"),
         "ranks: got '3'; a collective needs two or more ranks"),
        # flow level: a flow ending beyond the picosecond clock waited for ever
        # (RuntimeError "the fabric stalled")
        (dlnet.run_collective, dict(network="flow", link_rate="1bps", min_bytes="1MiB",
                                    max_bytes="1MiB"),
         "rates: a flow of .* beyond the simulator's clock"),
        (dlnet.run_sparse, dict(network="flow", rates="1bps", tensor_bytes="1MiB", workers="2",
                                densities="1"),
         "rates: a flow of .* beyond the simulator's clock"),
        # beyond 1 TiB the message named max-bytes, which run_sparse does not take
        (dlnet.run_sparse, dict(tensor_bytes=2**63, workers="2", densities="1"),
         "tensor-bytes: got '9223372036854775808'"),
        # messages are all sent at time 0 and each keeps ~1.5 KB
        (dlnet.run_traffic, dict(messages=2**31, message_bytes=1024),
         "messages: 2147483648 per flow x 8 flows is more than 2097152"),
    ],
)
def test_refused_naming_the_field(function, options, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        function(results_dir=str(tmp_path), **options)
