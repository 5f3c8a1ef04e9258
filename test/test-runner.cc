/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Debian's ns-3 ships no test-runner: this is ours. It finds the repository
// root by looking upward for VERSION and LICENSE, as ns-3's own does.
#include "ns3/test.h"

int
main(int argc, char** argv)
{
    return ns3::TestRunner::Run(argc, argv);
}
