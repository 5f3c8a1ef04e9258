/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DLNET_PLOT_WRITER_H
#define DLNET_PLOT_WRITER_H

#include "traffic-experiment.h"

#include "ns3/gnuplot.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * Text a user gave (a file name, a name read from a file) as it may stand in a
 * plot's title, label or key: ns-3's Gnuplot writes those inside double quotes,
 * where gnuplot reads backslash escapes and runs a backquoted command, and a
 * double quote or a newline would end the string. Each of those characters
 * (and any other control character) becomes '?'.
 */
std::string PlotText(const std::string& text);

/// PlotText in double quotes: a label of a script's own lines (xtics, set label)
std::string PlotQuoted(const std::string& text);

/**
 * Write a Gnuplot's script next to the PNG it makes, and run gnuplot on it.
 * \param plot the plot (its output file name is set here)
 * \param pngPath where the picture goes
 * \return true if gnuplot produced the PNG (false, with a warning on
 *         stderr, when gnuplot is missing: the .plt script stays)
 */
bool RenderPng(Gnuplot& plot, const std::string& pngPath);

/**
 * Plot a traffic result: the CDF of message completion times
 * (fct-cdf.png) and the utilisation of every link direction that carried
 * traffic (link-utilisation.png), in dir.
 * \return the PNGs written
 */
std::vector<std::string> PlotTraffic(const TrafficResult& result, const std::string& dir);

} // namespace ns3

#endif /* DLNET_PLOT_WRITER_H */
