/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "plot-writer.h"

#include "result-writer.h"

#include "ns3/log.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetPlotWriter");

bool
RenderPng(Gnuplot& plot, const std::string& pngPath)
{
    std::string script = pngPath.substr(0, pngPath.size() - 4) + ".plt";
    plot.SetOutputFilename(pngPath);
    plot.SetTerminal("pngcairo size 900,560 noenhanced font 'sans,11'");
    {
        std::ofstream out(script);
        if (!out)
        {
            throw std::runtime_error("cannot write " + script);
        }
        plot.GenerateOutput(out);
    }
    std::filesystem::remove(pngPath);
    std::string command = "gnuplot '" + script + "' 2>/dev/null";
    if (std::system(command.c_str()) != 0 || !std::filesystem::exists(pngPath))
    {
        std::filesystem::remove(pngPath); // gnuplot opens its output before it fails: empty
        std::cerr << "warning: gnuplot could not render " << pngPath << " (script kept: " << script
                  << ")\n";
        return false;
    }
    return true;
}

std::vector<std::string>
PlotTraffic(const TrafficResult& r, const std::string& dir)
{
    MakeResultsDir(dir);
    std::vector<std::string> written;
    std::string title
        = r.pattern + " on " + r.topology + " (" + std::to_string(r.ranks) + " ranks)";

    std::vector<double> fct;
    for (const auto& m : r.messages)
    {
        fct.push_back(m.fct * 1e6);
    }
    std::sort(fct.begin(), fct.end());
    Gnuplot cdf;
    cdf.SetTitle("Message completion time, " + title);
    cdf.SetLegend("completion time (us)", "fraction of messages");
    cdf.AppendExtra("set grid\nset key bottom right\nset yrange [0:1.05]");
    Gnuplot2dDataset cdfData("messages");
    cdfData.SetStyle(Gnuplot2dDataset::STEPS);
    for (std::size_t i = 0; i < fct.size(); ++i)
    {
        cdfData.Add(fct[i], double(i + 1) / fct.size());
    }
    cdf.AddDataset(cdfData);
    // a run cut by its stop-time before any message was delivered has no completion to plot
    if (!fct.empty() && RenderPng(cdf, dir + "/fct-cdf.png"))
    {
        written.push_back(dir + "/fct-cdf.png");
    }

    std::vector<std::pair<std::string, double>> used;
    for (const auto& l : r.links)
    {
        if (l.txBytes > 0 && l.tier != "local")
        {
            used.emplace_back(l.from + ">" + l.to, l.utilisation * 100);
        }
    }
    Gnuplot links;
    links.SetTitle("Link utilisation over the makespan, " + title);
    links.SetLegend("link direction", "utilisation (%)");
    std::string extra = "set grid ytics\nset yrange [0:105]\nset xrange [-1:"
                        + std::to_string(used.size()) + "]\nset key off\n";
    if (used.size() <= 64)
    {
        // Name each link direction while the names still fit under the axis.
        extra += "set xtics rotate by 60 right font ',8'\nset xtics (";
        for (std::size_t i = 0; i < used.size(); ++i)
        {
            extra += (i ? ", \"" : "\"") + used[i].first + "\" " + std::to_string(i);
        }
        extra += ")";
    }
    links.AppendExtra(extra);
    Gnuplot2dDataset linkData("utilisation");
    linkData.SetStyle(Gnuplot2dDataset::IMPULSES);
    linkData.SetExtra("lw 6");
    for (std::size_t i = 0; i < used.size(); ++i)
    {
        linkData.Add(double(i), used[i].second);
    }
    links.AddDataset(linkData);
    if (RenderPng(links, dir + "/link-utilisation.png"))
    {
        written.push_back(dir + "/link-utilisation.png");
    }
    return written;
}

} // namespace ns3
