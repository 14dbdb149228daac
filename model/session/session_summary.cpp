#include "model/session/session_summary.h"

#include "format/session_meta.h"
#include "format/terminal_text.h"
#include "model/session/collective_names.h"

#include <cxxabi.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

namespace stallscope::model {

std::string readableKernelName(const std::string& name) {
    if (std::string collective = collectiveLabel(name); !collective.empty())
        return collective;
    if (name.rfind("_Z", 0) != 0)
        return name;
    int status = 0;
    char* demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    std::string result = status == 0 && demangled ? std::string(demangled) : name;
    std::free(demangled);
    return result;
}

SessionSummary SessionSummary::of(const Session& session) {
    SessionSummary summary;
    // One line each, whatever the file holds: a value cannot print a line of its own.
    auto add = [&](std::string label, const std::string& value) {
        summary.rows.emplace_back(std::move(label), format::shownLine(value));
    };
    // An imported trace is what the user opened; the session beside it is only the import cache.
    // A run (Session::parts) is read from its own files, with nothing cached.
    const std::string importSource = session.metaValue(format::meta::kImportSource);
    add("File", importSource.empty() ? session.path : importSource);
    if (!importSource.empty() && session.parts.empty())
        add("Import cache", session.path);
    std::string command = session.metaValue(format::meta::kCommand);
    if (command.empty() && !session.processes.empty())
        command = session.processes.front().command;
    add("Command", command.empty() ? "(unknown)" : command);
    std::string host = session.metaValue(format::meta::kHost);
    if (host.empty() && !session.processes.empty())
        host = session.processes.front().host;
    add("Host", host.empty() ? "(unknown)" : host);

    // GPUs: "2 × NVIDIA H100 80GB HBM3 (sm_90)" grouped by model.
    // A GPU is counted once however many processes saw it (the ranks of a run on one host all
    // see every GPU): by its UUID when recorded.
    std::map<std::string, int> models;
    std::set<std::string> counted;
    for (const DeviceInfo& device : session.devices) {
        if (!device.uuid.empty() && !counted.insert(device.uuid).second)
            continue;
        if (device.name.empty() && device.computeMajor == 0) { // a trace without its properties
            models["GPU " + std::to_string(device.deviceIndex) + " (model not recorded)"]++;
            continue;
        }
        models[device.name + " (sm_" + std::to_string(device.computeMajor) +
               std::to_string(device.computeMinor) + ")"]++;
    }
    std::string gpus;
    for (const auto& [name, count] : models)
        gpus +=
            (gpus.empty() ? "" : ", ") + (count > 1 ? std::to_string(count) + " × " : "") + name;
    add("GPUs", gpus.empty() ? "none recorded" : gpus);

    add("Duration", formatDuration(session.durationNs()));
    if (const std::string captured = capturedText(session); !captured.empty())
        add("Recorded", captured);
    if (const std::optional<int64_t> ringNs = session.metaCount(format::meta::kRingNs)) {
        std::string ring = "kept the last " + formatDuration(*ringNs) + " (--ring)";
        if (const std::optional<int64_t> run = session.metaCount(format::meta::kDurationNs))
            ring += " of a " + formatDuration(*run) + " run";
        if (const std::string why = session.metaValue(format::meta::kSnapshotReason); !why.empty())
            ring += "; snapshot on " + why;
        add("Flight recorder", ring);
    }
    // Imported traces: what the importer clipped the session to (format/session_meta.h).
    if (const std::string window = session.metaValue(format::meta::kImportWindow);
        !window.empty() && window != "none")
        add("Profiler window",
            window + ", " +
                formatDuration(
                    std::atoll(session.metaValue(format::meta::kImportWindowClippedNs).c_str())) +
                " of host events outside it left out");
    add("Processes", std::to_string(session.processes.size()));
    // A multi-process run: its ranks, launcher and hosts, and how their clocks were aligned.
    std::set<int64_t> ranks;
    std::set<std::string> launchers, hosts;
    for (const ProcessInfo& process : session.processes) {
        hosts.insert(process.host);
        if (process.rank) {
            ranks.insert(process.rank->rank);
            if (!process.rank->launcher.empty())
                launchers.insert(process.rank->launcher);
        }
    }
    if (!ranks.empty()) {
        std::string text = std::to_string(ranks.size()) + " (rank " +
                           std::to_string(*ranks.begin()) +
                           (ranks.size() > 1 ? " … " + std::to_string(*ranks.rbegin()) : "") + ")";
        for (const std::string& launcher : launchers)
            text += ", " + launcher;
        if (hosts.size() > 1)
            text += ", " + std::to_string(hosts.size()) + " hosts";
        add("Ranks", text);
    }
    if (const std::string alignment = session.metaValue(format::meta::kRunClockAlignment);
        !alignment.empty())
        add("Clocks", alignment);
    add("Threads", std::to_string(session.threads.size()));
    add("Streams", std::to_string(session.streams.size()));
    const format::EventCounts& c = session.counts;
    add("Kernels", formatCount(c.kernels));
    add("Memcpys", formatCount(c.memcpys));
    add("Memsets", formatCount(c.memsets));
    add("Syncs", formatCount(c.syncs));
    // A light recording (stallscope-record --mode light) leaves them out on purpose (unless its
    // kinds put some back).
    const bool leftOut =
        c.apiCalls == 0 && session.metaValue(format::meta::kRecorderMode) == "light";
    add("API calls", formatCount(c.apiCalls) + (leftOut ? " (light recording)" : ""));
    add("Ranges", formatCount(c.ranges));
    add("Events", formatCount(c.total()));
    // An imported trace: what was read, and what was left out by category (issue 15).
    if (const std::string read = session.metaValue(format::meta::kImportEvents); !read.empty()) {
        int64_t events = 0;
        std::from_chars(read.data(), read.data() + read.size(), events);
        std::string imported = formatCount(events) + " trace events read";
        if (const std::string ignored = session.metaValue(format::meta::kImportIgnoredCategories);
            !ignored.empty())
            imported += "; not used: " + ignored;
        if (const std::string unknown = session.metaValue(format::meta::kImportUnknownCategories);
            !unknown.empty())
            imported += "; unknown categories: " + unknown;
        add("Imported", imported);
    }
    if (session.droppedRecords > 0)
        add("Dropped records", formatCount(session.droppedRecords));
    // A file still marked "recording" is, for whoever reads it, an incomplete session: its
    // recorder was killed or has not finished (the warning says which data is missing).
    std::string status = session.status == "recording"
                             ? std::string("incomplete (recording did not finish)")
                             : session.status;
    if (!session.processes.empty() && session.processes.front().exitCode)
        status += ", exit code " + std::to_string(*session.processes.front().exitCode);
    add("Status", status);
    if (!session.warning.empty())
        add("Warning", session.warning);
    return summary;
}

namespace {

// A capture_reason in the words of stallscope-record's options.
std::string captureReasonText(const std::string& reason) {
    namespace why = format::capture_reason;
    if (reason == why::kStart)
        return "the start";
    if (reason == why::kDelay)
        return "--delay";
    if (reason == why::kDuration)
        return "--duration";
    if (reason == why::kEnd || reason.empty())
        return "the end";
    if (reason == why::kRing)
        return "--ring's cut";
    if (reason == why::kSnapshot)
        return "the snapshot (the recording went on)";
    if (reason.starts_with(why::kNvtxPrefix))
        return "NVTX range \"" + reason.substr(why::kNvtxPrefix.size()) + "\"";
    return reason; // cudaProfilerStart, cudaProfilerStop
}

} // namespace

std::string capturedText(const Session& session) {
    if (!session.captureControlled)
        return {};
    // --capture-steps A-B: the ranges recorded were steps A to B of the program's.
    const std::string steps = session.metaValue(format::meta::kCaptureSteps);
    if (session.captureIntervals.empty())
        return "nothing: " + session.metaValue(format::meta::kCaptureRange) +
               (steps.empty() ? " never opened a range" : " never reached steps " + steps);
    int64_t notRecordedNs = 0;
    for (const TimeSpan& gap : session.notRecorded())
        notRecordedNs += gap.endNs - gap.startNs;
    const CaptureInterval& first = session.captureIntervals.front();
    const size_t ranges = session.captureIntervals.size();
    std::string text =
        "from " + captureReasonText(first.openedBy) + " to " + captureReasonText(first.closedBy);
    if (!steps.empty())
        text += " (steps " + steps + ": " + std::to_string(ranges) +
                (ranges == 1 ? " range)" : " ranges)");
    else if (ranges > 1)
        text += " (the first of " + std::to_string(ranges) + " ranges)";
    if (notRecordedNs <= 0) // a ring's session, or a range as long as the run: nothing missing
        return text + ": all " + formatDuration(session.durationNs()) + " of the session";
    return text + ": " +
           formatDuration(std::max<int64_t>(0, session.durationNs() - notRecordedNs)) + " of " +
           formatDuration(session.durationNs()) + " (the rest not recorded)";
}

std::string SessionSummary::toText() const {
    size_t width = 0;
    for (const auto& row : rows)
        width = std::max(width, row.first.size());
    std::string text;
    for (const auto& [label, value] : rows)
        text += label + ":" + std::string(width - label.size() + 2, ' ') + value + "\n";
    return text;
}

} // namespace stallscope::model
