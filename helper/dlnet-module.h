/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Everything a dlnet user includes, as ns-3's <module>-module.h headers do.
#ifndef DLNET_MODULE_H
#define DLNET_MODULE_H

#include "ns3/alpha-beta-model.h"
#include "ns3/cluster.h"
#include "ns3/collective-engine.h"
#include "ns3/collective-experiment.h"
#include "ns3/collective-report.h"
#include "ns3/collective-schedule.h"
#include "ns3/collective-types.h"
#include "ns3/command-line-options.h"
#include "ns3/communicator.h"
#include "ns3/config-parse.h"
#include "ns3/experiment-options.h"
#include "ns3/fabric-channel.h"
#include "ns3/fabric-endpoint.h"
#include "ns3/fabric-header.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-message.h"
#include "ns3/fabric-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/fred-routing.h"
#include "ns3/omnireduce-header.h"
#include "ns3/omnireduce-helper.h"
#include "ns3/omnireduce-program.h"
#include "ns3/omnireduce.h"
#include "ns3/parallel-groups.h"
#include "ns3/plot-writer.h"
#include "ns3/reduction.h"
#include "ns3/result-writer.h"
#include "ns3/simulation-scope.h"
#include "ns3/sparsity.h"
#include "ns3/switch-program.h"
#include "ns3/switchml-header.h"
#include "ns3/switchml-helper.h"
#include "ns3/switchml-program.h"
#include "ns3/switchml-worker.h"
#include "ns3/topology-helper.h"
#include "ns3/traffic-experiment.h"
#include "ns3/wafer-helper.h"

#endif /* DLNET_MODULE_H */
