#include "recorder/recorder_experiments.h"

#include <array>

namespace stallscope::recorder {

namespace {

struct Choice {
    std::string_view name;
    std::string_view value;
    void (*apply)(RecorderExperiments&);
};

// Every NAME=VALUE the variable takes; the product's defaults are listed too, so a script can name
// them explicitly.
constexpr std::array kChoices = {
    Choice{"clock", "offset",
           [](RecorderExperiments& e) { e.clock = RecorderExperiments::Clock::Offset; }},
    Choice{"clock", "callback",
           [](RecorderExperiments& e) { e.clock = RecorderExperiments::Clock::Callback; }},
    Choice{"clock", "cupti",
           [](RecorderExperiments& e) { e.clock = RecorderExperiments::Clock::Cupti; }},
    Choice{"flush", "writer", [](RecorderExperiments& e) { e.cuptiFlushes = false; }},
    Choice{"flush", "cupti", [](RecorderExperiments& e) { e.cuptiFlushes = true; }},
    Choice{"zeroing", "recorder", [](RecorderExperiments& e) { e.cuptiZeroes = false; }},
    Choice{"zeroing", "cupti", [](RecorderExperiments& e) { e.cuptiZeroes = true; }},
    Choice{"fde-index", "on", [](RecorderExperiments& e) { e.fdeIndex = true; }},
    Choice{"fde-index", "off", [](RecorderExperiments& e) { e.fdeIndex = false; }},
    Choice{"callbacks", "on", [](RecorderExperiments& e) { e.apiCallbacks = true; }},
    Choice{"callbacks", "off", [](RecorderExperiments& e) { e.apiCallbacks = false; }},
    Choice{"sampler", "full",
           [](RecorderExperiments& e) { e.sampler = RecorderExperiments::Sampler::Full; }},
    Choice{"sampler", "tick",
           [](RecorderExperiments& e) { e.sampler = RecorderExperiments::Sampler::TickOnly; }},
    Choice{"sampler", "walk",
           [](RecorderExperiments& e) { e.sampler = RecorderExperiments::Sampler::WalkOnly; }},
    Choice{"probe-api", "switch", [](RecorderExperiments& e) { e.probeKeepsApiRecords = false; }},
    Choice{"probe-api", "keep", [](RecorderExperiments& e) { e.probeKeepsApiRecords = true; }},
    Choice{"probe-gate", "on", [](RecorderExperiments& e) { e.probeGate = true; }},
    Choice{"probe-gate", "off", [](RecorderExperiments& e) { e.probeGate = false; }},
};

} // namespace

void RecorderExperiments::apply(std::string_view list, std::string* warnings) {
    while (!list.empty()) {
        const size_t comma = list.find(',');
        const std::string_view item = list.substr(0, comma);
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
        if (item.empty())
            continue;
        const size_t equals = item.find('=');
        const std::string_view name = item.substr(0, equals);
        const std::string_view value =
            equals == std::string_view::npos ? std::string_view() : item.substr(equals + 1);
        bool known = false;
        for (const Choice& choice : kChoices)
            if (choice.name == name && choice.value == value) {
                choice.apply(*this);
                known = true;
            }
        if (!known && warnings)
            *warnings +=
                std::string(kVariable) + ": unknown experiment '" + std::string(item) + "'; ";
    }
}

const char* RecorderExperiments::clockName() const {
    switch (clock) {
    case Clock::Callback:
        return "callback";
    case Clock::Cupti:
        return "cupti";
    case Clock::Offset:
        break;
    }
    return "offset";
}

std::string RecorderExperiments::text() const {
    const RecorderExperiments defaults;
    std::string list;
    // The first choice of each name that reproduces this value, defaults left out.
    for (const Choice& choice : kChoices) {
        RecorderExperiments alone;
        choice.apply(alone);
        if (alone == defaults)
            continue;
        RecorderExperiments withIt = *this;
        choice.apply(withIt);
        if (withIt == *this)
            list += (list.empty() ? "" : ",") + std::string(choice.name) + "=" +
                    std::string(choice.value);
    }
    return list;
}

} // namespace stallscope::recorder
