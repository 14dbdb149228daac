// Timeline rendering (issue 6): an offscreen TimelineWidget at 1920×1080 on a generated
// 10-million-event session. Goals: a frame <= 16 ms at full zoom-out, at a 1 ms window and while
// panning (every frame a new viewport: draw-list rebuild + paint); hover hit-test <= 1 ms.
//
//   stallscope-bench-timeline [--session=FILE|RUN-FOLDER] [--events=10000000]
//                             [Google Benchmark flags]
// The session is generated (seed 1) when FILE does not exist, and kept for the next run (the
// same file bench_load uses); a run folder (stallscope-bench-run-open's) opens as one session.
#include "bench/bench_session.h"
#include "bench/bench_support.h"
#include "model/interop/run_merge.h"
#include "model/session/session.h"
#include "model/session/session_loader.h"
#include "views/timeline/timeline_widget.h"

#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

namespace {

using stallscope::views::TimelineWidget;

std::shared_ptr<const stallscope::model::Session> g_session;
TimelineWidget* g_widget = nullptr;
QImage* g_image = nullptr;

void renderFrame() {
    g_widget->render(g_image);
}

// A window of `spanNs` centred in the session.
void showWindow(int64_t spanNs) {
    const int64_t middle = g_session->startNs + g_session->durationNs() / 2;
    g_widget->setVisibleRange(middle - spanNs / 2, middle + spanNs / 2);
}

void setView(benchmark::State& state) {
    const int64_t span = state.range(0);
    if (span == 0)
        g_widget->zoomToFit();
    else
        showWindow(span);
    state.SetLabel(span == 0 ? "full zoom-out" : std::to_string(span / 1000) + " us window");
}

// Paint only: the draw list is cached (a repaint after hover, selection or an expose).
void paintCached(benchmark::State& state) {
    setView(state);
    renderFrame();
    for (auto _ : state)
        renderFrame();
}

// A new viewport every frame, same range: draw-list rebuild + paint (a zoom step costs this).
void rebuildAndPaint(benchmark::State& state) {
    setView(state);
    const int64_t start = g_widget->viewport().visibleStartNs();
    const int64_t end = g_widget->viewport().visibleEndNs();
    for (auto _ : state) {
        g_widget->setVisibleRange(start, end);
        renderFrame();
    }
    state.counters["blocks"] = static_cast<double>(g_widget->drawList().blocks().size());
}

// Panning: 7 px per frame, back and forth, each frame a rebuild + paint.
void panFrame(benchmark::State& state) {
    setView(state);
    int direction = 1;
    int step = 0;
    for (auto _ : state) {
        g_widget->panByPixels(7.0 * direction);
        renderFrame();
        if (++step % 40 == 0)
            direction = -direction;
    }
}

// Draw-list build alone (the part of a frame that depends on the event count).
void drawListBuild(benchmark::State& state) {
    setView(state);
    for (auto _ : state) {
        g_widget->setVisibleRange(g_widget->viewport().visibleStartNs(),
                                  g_widget->viewport().visibleEndNs());
        benchmark::DoNotOptimize(g_widget->drawList().blocks().data());
    }
}

// Hover: eventAt() at pseudo-random canvas points (lanes with events and without).
void hoverHitTest(benchmark::State& state) {
    setView(state);
    const QRect canvas = g_widget->canvasRect();
    const int contentBottom =
        std::min(canvas.bottom(), canvas.top() + g_widget->layout().contentHeight() - 1);
    uint64_t seed = 12345;
    int64_t hits = 0;
    int64_t probes = 0;
    for (auto _ : state) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        const int x = canvas.left() + static_cast<int>((seed >> 33) % canvas.width());
        const int y = canvas.top() +
                      static_cast<int>((seed >> 13) % std::max(1, contentBottom - canvas.top()));
        const auto hit = g_widget->eventAt(QPoint(x, y));
        hits += hit.isValid();
        ++probes;
        benchmark::DoNotOptimize(hit);
    }
    state.counters["hit_share"] = probes ? static_cast<double>(hits) / probes : 0.0;
}

constexpr int64_t kFull = 0;
constexpr int64_t kOneMs = 1'000'000;
constexpr int64_t kTenMs = 10'000'000;
constexpr int64_t kOneSecond = 1'000'000'000;

void registerAll() {
    auto ms = [](benchmark::internal::Benchmark* b) {
        b->Unit(benchmark::kMillisecond)->MinTime(1.0);
    };
    ms(benchmark::RegisterBenchmark("paint_cached", paintCached)
           ->Arg(kFull)
           ->Arg(kOneSecond)
           ->Arg(kOneMs));
    ms(benchmark::RegisterBenchmark("frame_rebuild_and_paint", rebuildAndPaint)
           ->Arg(kFull)
           ->Arg(kOneSecond)
           ->Arg(kTenMs)
           ->Arg(kOneMs));
    ms(benchmark::RegisterBenchmark("frame_while_panning", panFrame)
           ->Arg(kFull)
           ->Arg(kOneSecond)
           ->Arg(kTenMs)
           ->Arg(kOneMs));
    ms(benchmark::RegisterBenchmark("draw_list_build", drawListBuild)->Arg(kFull)->Arg(kOneMs));
    benchmark::RegisterBenchmark("hover_hit_test", hoverHitTest)
        ->Arg(kFull)
        ->Arg(kOneSecond)
        ->Arg(kOneMs)
        ->Unit(benchmark::kMicrosecond)
        ->MinTime(1.0);
}

} // namespace

int main(int argc, char** argv) {
    using namespace stallscope;
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    const std::string path = bench::syntheticBenchSession(argc, argv, "stallscope-bench-timeline");
    if (path.empty())
        return 1;
    QApplication app(argc, argv);
    const auto loadStart = std::chrono::steady_clock::now();
    model::LoadResult result = model::looksLikeRun(path) ? model::RunMerger::load({path})
                                                         : model::SessionLoader::load(path);
    if (!result.ok()) {
        std::fprintf(stderr, "stallscope-bench-timeline: %s\n", result.error.c_str());
        return 1;
    }
    const double loadSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - loadStart).count();
    g_session = std::shared_ptr<const model::Session>(std::move(result.session));

    TimelineWidget widget;
    widget.resize(1920, 1080);
    widget.setSession(g_session);
    QImage image(widget.size(), QImage::Format_ARGB32_Premultiplied);
    g_widget = &widget;
    g_image = &image;

    char text[64];
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(g_session->counts.total()));
    benchmark::AddCustomContext("session_events", text);
    std::snprintf(text, sizeof text, "%.1f s", g_session->durationNs() / 1e9);
    benchmark::AddCustomContext("session_span", text);
    std::snprintf(text, sizeof text, "%zu", widget.layout().lanes().size());
    benchmark::AddCustomContext("lanes", text);
    std::snprintf(text, sizeof text, "%.2f s", loadSeconds);
    benchmark::AddCustomContext("load_seconds", text);
    std::snprintf(text, sizeof text, "%dx%d (canvas %dx%d)", widget.width(), widget.height(),
                  widget.canvasRect().width(), widget.canvasRect().height());
    benchmark::AddCustomContext("widget", text);

    registerAll();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    g_widget = nullptr;
    return 0;
}
