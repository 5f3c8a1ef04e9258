/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "plot-writer.h"

#include "result-fields.h"
#include "result-writer.h"

#include "ns3/config-parse.h"
#include "ns3/log.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DlnetPlotWriter");

namespace
{

/// A character that would end a line of a script (or garble it): ASCII's control characters
bool
IsControl(char c)
{
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
}

} // namespace

std::string
PlotText(const std::string& text)
{
    std::string out = text;
    for (char& c : out)
    {
        if (c == '"' || c == '`' || c == '\\' || IsControl(c))
        {
            c = '?';
        }
    }
    return out;
}

std::string
PlotQuoted(const std::string& text)
{
    return "\"" + PlotText(text) + "\"";
}

namespace
{

/// Run gnuplot on the script with the PNG's name as its argument ARG1; \return its exit status
/// (-1 when it could not be started). No shell: a quote, `$(...)` or a newline in a results
/// folder's name stays part of the name.
int
RunGnuplot(const std::string& script, const std::string& pngPath)
{
    // a name that starts with '-' would be read as an option
    const std::string scriptArg = script.rfind('-', 0) == 0 ? "./" + script : script;
    std::vector<std::string> args{"gnuplot", "-c", scriptArg, pngPath};
    std::vector<char*> argv;
    for (auto& a : args)
    {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    // gnuplot starts with default signal handling and none blocked, whatever its caller set
    // (Python ignores SIGPIPE)
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t all;
    sigset_t none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    const int error = posix_spawnp(&pid, "gnuplot", &actions, &attributes, argv.data(), environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0)
    {
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
    {
        if (errno != EINTR)
        {
            return -1;
        }
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

bool
RenderPng(Gnuplot& plot, const std::string& pngPath)
{
    std::string script = pngPath.substr(0, pngPath.size() - 4) + ".plt";
    // The PNG's name in single quotes, which gnuplot reads with no escapes and no backquoted
    // command, a quote doubled; a name with a newline or another control character (which
    // would end the line) reaches gnuplot as its argument ARG1 instead (the kept script then
    // needs "gnuplot -c SCRIPT PNG")
    const bool plain = std::none_of(pngPath.begin(), pngPath.end(), IsControl);
    std::string quoted = "'";
    for (char c : pngPath)
    {
        quoted += c == '\'' ? std::string("''") : std::string(1, c);
    }
    quoted += "'";
    plot.SetOutputFilename("");
    plot.SetTerminal("pngcairo size 900,560 noenhanced font 'sans,11'\nset output "
                     + (plain ? quoted : std::string("ARG1")));
    {
        std::string text;
        {
            std::ostringstream out;
            plot.GenerateOutput(out);
            text = out.str();
        }
        WriteTextFile(script, text);
        // Every text of ours is fixed or a checked name: a backquote, which gnuplot runs as a
        // command inside a double-quoted string, is one that escaped the checks.
        std::string ours = text; // (the name, single-quoted, may hold one)
        if (plain)
        {
            ours.erase(ours.find(quoted), quoted.size());
        }
        if (ours.find('`') != std::string::npos)
        {
            std::cerr << "warning: not rendering " << dlnet::PrintablePath(pngPath)
                      << ": its script holds a backquote (script kept: "
                      << dlnet::PrintablePath(script) << ")\n";
            return false;
        }
    }
    std::filesystem::remove(pngPath);
    if (RunGnuplot(script, pngPath) != 0 || !std::filesystem::exists(pngPath))
    {
        std::filesystem::remove(pngPath); // gnuplot opens its output before it fails: empty
        std::cerr << "warning: gnuplot could not render " << dlnet::PrintablePath(pngPath)
                  << " (script kept: " << dlnet::PrintablePath(script) << ")\n";
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
    // (a run cut before any byte crossed a link between switches or hosts has nothing to plot)
    if (!used.empty() && RenderPng(links, dir + "/link-utilisation.png"))
    {
        written.push_back(dir + "/link-utilisation.png");
    }
    return written;
}

} // namespace ns3
