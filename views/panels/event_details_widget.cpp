#include "views/panels/event_details_widget.h"

#include "format/enum_names.h"
#include "format/module_class.h"
#include "model/session/collective_names.h"
#include "model/session/session.h"
#include "model/session/session_database.h"
#include "model/session/session_summary.h"
#include "views/panels/duration_text.h"
#include "views/timeline/correlation_index.h"
#include "views/timeline/range_summary.h"
#include "views/timeline/sync_link.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

#include <exception>

namespace stallscope::views {

namespace {

QString esc(const QString& text) {
    return text.toHtmlEscaped();
}

QString bytes(int64_t n) {
    return QString::fromStdString(model::formatBytes(n)) +
           QStringLiteral(" (%1 B)").arg(QString::fromStdString(model::formatCount(n)));
}

QString row(const QString& label, const QString& valueHtml) {
    return QStringLiteral("<tr><td style='color:gray;padding-right:10px'>"
                          "%1</td><td>%2</td></tr>")
        .arg(esc(label), valueHtml);
}

QString kindTitle(model::EventKind kind) {
    static constexpr auto kTitles = std::to_array<std::string_view>(
        {"API call", "Sync (host blocked)", "NVTX range", "Kernel", "Memcpy", "Memset"});
    const std::string_view title = format::nameOf(kTitles, kind, "");
    return QString::fromLatin1(title.data(), static_cast<qsizetype>(title.size()));
}

QString share(double value) {
    return QString::number(value * 100.0, 'f', 1) + QStringLiteral(" %");
}

} // namespace

EventDetailsWidget::EventDetailsWidget(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_choiceRow = new QWidget(this);
    auto* choices = new QHBoxLayout(m_choiceRow);
    choices->setContentsMargins(4, 2, 4, 0);
    choices->addWidget(new QLabel(tr("Showing the sync:"), m_choiceRow));
    const QString names[] = {tr("First"), tr("Median"), tr("Slowest")};
    for (size_t i = 0; i < m_choiceButtons.size(); ++i) {
        auto* button = new QToolButton(m_choiceRow);
        button->setText(names[i]);
        button->setCheckable(true);
        button->setAutoExclusive(true);
        connect(button, &QToolButton::clicked, this, [this, i] {
            if (m_choiceEvents[i].isValid())
                emit syncChosen(m_choiceEvents[i]);
        });
        choices->addWidget(button);
        m_choiceButtons[i] = button;
    }
    choices->addStretch(1);
    m_choiceRow->hide();
    layout->addWidget(m_choiceRow);
    m_browser = new QTextBrowser(this);
    m_browser->setOpenLinks(false);
    m_browser->setFrameShape(QFrame::NoFrame);
    layout->addWidget(m_browser);
    clear();
}

EventDetailsWidget::~EventDetailsWidget() = default;

void EventDetailsWidget::setSession(std::shared_ptr<const model::Session> session, bool readFiles) {
    m_session = std::move(session);
    m_readFiles = readFiles;
    m_database.reset();
    m_databaseTried = false;
    m_databaseError.clear();
    clear();
}

QString EventDetailsWidget::text() const {
    return m_browser->toPlainText();
}

void EventDetailsWidget::clear() {
    m_choiceEvents = {};
    m_choiceRow->hide();
    m_browser->setHtml(QStringLiteral("<p style='color:gray'>%1</p>")
                           .arg(tr("Click an event in the timeline to see its details; drag on "
                                   "the time ruler to summarise a range.")));
}

const model::SessionDatabase* EventDetailsWidget::database() {
    if (!m_databaseTried) {
        m_databaseTried = true;
        if (!m_session || !m_readFiles) {
            m_databaseError = tr("no session file");
        } else {
            auto database = std::make_unique<model::SessionDatabase>();
            std::string error;
            if (database->open(*m_session, &error))
                m_database = std::move(database);
            else
                m_databaseError = QString::fromStdString(error);
        }
    }
    return m_database.get();
}

QString EventDetailsWidget::time(int64_t ns) const {
    const double ms = static_cast<double>(ns - (m_session ? m_session->startNs : 0)) / 1e6;
    return QStringLiteral("%1 ms").arg(QString::number(ms, 'f', 6));
}

void EventDetailsWidget::setChoices(const model::EventSpans& syncs, const model::EventRef& shown) {
    using model::EventKind;
    m_choiceEvents = {};
    if (m_session && model::eventCount(syncs) > 1) {
        m_choiceEvents = {model::firstEvent(*m_session, syncs, EventKind::Sync),
                          model::medianEvent(*m_session, syncs, EventKind::Sync),
                          model::slowestEvent(*m_session, syncs, EventKind::Sync)};
    }
    const bool offered = m_choiceEvents[0].isValid();
    for (size_t i = 0; i < m_choiceButtons.size(); ++i)
        if (offered && m_choiceEvents[i] == shown)
            m_choiceButtons[i]->setChecked(true);
    m_choiceRow->setVisible(offered);
}

void EventDetailsWidget::showEventDetails(const model::EventRef& event) {
    if (!m_session || !event.isIn(*m_session)) {
        clear();
        return;
    }
    m_browser->setHtml(eventHtml(event));
}

QString EventDetailsWidget::eventHtml(const model::EventRef& event) {
    const model::Session& session = *m_session;
    const int64_t start = event.start(session);
    const int64_t end = event.end(session);
    QString html = QStringLiteral("<h3 style='margin:2px 0'>%1</h3><p style='margin:0'>%2</p>")
                       .arg(esc(eventName(session, event)), esc(kindTitle(event.kind)));
    html += QStringLiteral("<table cellspacing='0' cellpadding='1'>");
    html += row(event.isHost() ? tr("Thread") : tr("Stream"), esc(eventLaneLabel(session, event)));
    html += row(tr("Start"), time(start));
    html += row(tr("End"), time(end));
    html += row(event.kind == model::EventKind::Sync ? tr("Blocked") : tr("Duration"),
                QStringLiteral("<b>%1</b>").arg(durationText(end - start)));
    if (const uint32_t correlation = event.correlationId(session))
        html += row(tr("Correlation id"), QString::number(correlation));
    const model::IntervalColumns* columns = event.columns(session);
    const int64_t rowId = columns->rowId[event.index];
    switch (event.kind) {
    case model::EventKind::Kernel: {
        const model::SessionDatabase* db = database();
        std::optional<format::KernelRow> details;
        if (db) {
            try {
                details = db->kernelDetails(rowId);
            } catch (const std::exception& error) {
                m_databaseError = QString::fromUtf8(error.what());
            }
        }
        if (const format::CollectiveCallRow* collective = session.collectiveCall(rowId))
            html += row(tr("Collective"),
                        esc(QString::fromStdString(model::collectiveCallText(*collective))));
        if (details) {
            auto dim3 = [](const int32_t* v) {
                return QStringLiteral("(%1, %2, %3)").arg(v[0]).arg(v[1]).arg(v[2]);
            };
            html += row(tr("Grid"), dim3(details->grid));
            html += row(tr("Block"), dim3(details->block));
            html += row(tr("Registers/thread"), QString::number(details->registersPerThread));
            html += row(
                tr("Shared memory"),
                tr("%1 static, %2 dynamic")
                    .arg(QString::fromStdString(model::formatBytes(details->staticSharedBytes)),
                         QString::fromStdString(model::formatBytes(details->dynamicSharedBytes))));
        } else {
            html += row(tr("Launch"), tr("grid/block unavailable%1")
                                          .arg(m_databaseError.isEmpty()
                                                   ? QString()
                                                   : QStringLiteral(" (") + esc(m_databaseError) +
                                                         QLatin1Char(')')));
        }
        break;
    }
    case model::EventKind::Memcpy:
    case model::EventKind::Memset: {
        const model::TransferColumns& transfers = *event.transfers(session);
        const int64_t n = static_cast<int64_t>(transfers.bytes[event.index]);
        html += row(tr("Bytes"), bytes(n));
        if (event.kind == model::EventKind::Memcpy) {
            html += row(tr("Copy kind"), QStringLiteral("%1 (%2 → %3)")
                                             .arg(copyKindName(transfers.copyKind[event.index]),
                                                  memoryKindName(transfers.srcKind[event.index]),
                                                  memoryKindName(transfers.dstKind[event.index])));
        } else {
            html += row(tr("Memory"), memoryKindName(transfers.dstKind[event.index]));
        }
        if (end > start)
            html += row(tr("Throughput"),
                        QStringLiteral("%1/s").arg(QString::fromStdString(model::formatBytes(
                            static_cast<int64_t>(static_cast<double>(n) * 1e9 /
                                                 static_cast<double>(end - start))))));
        break;
    }
    case model::EventKind::Range:
        html += row(tr("Depth"), QString::number(event.depth));
        break;
    case model::EventKind::ApiCall:
    case model::EventKind::Sync:
        break;
    }
    html += QStringLiteral("</table>");
    if (event.kind == model::EventKind::Sync)
        html += syncHtml(event);
    return html;
}

QString EventDetailsWidget::syncHtml(const model::EventRef& event) {
    const model::Session& session = *m_session;
    const model::SyncColumns& syncs = session.hostLanes[event.lane].syncs;
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='1'>");
    html += row(tr("Kind"), esc(syncKindName(syncs.kind[event.index])));
    const int32_t stream = syncs.streamIndex[event.index];
    if (stream >= 0 && static_cast<size_t>(stream) < session.streams.size())
        html += row(tr("Waited on"),
                    esc(QString::fromStdString(session.streamLabel(session.streams[stream]))));
    const auto index = CorrelationIndex::of(m_session);
    const SyncLinkTargets link = SyncLink::targets(session, event, *index);
    if (link.work.isValid()) {
        const int64_t gap = syncs.end[event.index] - link.work.end(session);
        html += row(tr("Waited for"),
                    tr("<b>%1</b> on %2, ended %3 before the sync returned")
                        .arg(esc(eventName(session, link.work)),
                             esc(eventLaneLabel(session, link.work)), durationText(gap)));
    } else {
        html += row(tr("Waited for"), tr("no GPU work ended before the sync returned"));
    }
    if (link.launch.isValid())
        html += row(tr("Launched by"), tr("%1 on %2 at %3")
                                           .arg(esc(eventName(session, link.launch)),
                                                esc(eventLaneLabel(session, link.launch)),
                                                time(link.launch.start(session))));
    html += QStringLiteral("</table>");
    html += stackHtml(syncs.stackId[event.index]);
    return html;
}

QString EventDetailsWidget::stackHtml(uint32_t stackId) {
    QString html = QStringLiteral("<h4 style='margin:6px 0 2px 0'>%1</h4>").arg(tr("Call stack"));
    if (stackId == 0)
        return html + tr("<p>No stack was recorded for this sync.</p>");
    const model::SessionDatabase* db = database();
    if (!db)
        return html + tr("<p>Stack unavailable: %1</p>").arg(esc(m_databaseError));
    std::vector<model::FrameInfo> frames;
    std::vector<model::ModuleInfo> modules;
    try {
        frames = db->stack(stackId);
        modules = db->modules();
    } catch (const std::exception& error) {
        return html + tr("<p>Stack unavailable: %1</p>").arg(esc(QString::fromUtf8(error.what())));
    }
    if (frames.empty())
        return html + tr("<p>Stack %1 has no frames.</p>").arg(stackId);
    auto moduleName = [&](int64_t moduleId) {
        for (const model::ModuleInfo& info : modules)
            if (info.id == moduleId)
                return QFileInfo(QString::fromStdString(info.path)).fileName();
        return QString();
    };
    // The innermost frames are the recorder's callback, CUPTI and the driver calling it: noise
    // above the API call the program made. They are counted, not listed.
    size_t skipped = 0;
    while (skipped + 1 < frames.size()) {
        const model::FrameInfo& frame = frames[skipped];
        const QString module = moduleName(frame.moduleId);
        const bool tooling = frame.kind == format::FrameKind::Native &&
                             (format::isAboveApiCallModule(module.toStdString()) ||
                              frame.function.rfind("stallscope::recorder::", 0) == 0);
        if (!tooling)
            break;
        ++skipped;
    }
    if (skipped > 0)
        html += tr("<p style='color:gray;margin:0'>%n recorder/CUPTI/driver frame(s) above the "
                   "API call not shown</p>",
                   nullptr, static_cast<int>(skipped));
    html += QStringLiteral("<table cellspacing='0' cellpadding='1' style='font-family:monospace'>");
    for (size_t i = skipped; i < frames.size(); ++i) {
        const model::FrameInfo& frame = frames[i];
        const bool python = frame.kind == format::FrameKind::Python;
        QString where;
        const QString function = QString::fromStdString(frame.function);
        const QString file = QFileInfo(QString::fromStdString(frame.file)).fileName();
        if (!function.isEmpty() || !file.isEmpty()) {
            where = QStringLiteral("<b>%1</b>").arg(esc(function.isEmpty() ? tr("?") : function));
            if (!file.isEmpty())
                where += QStringLiteral(" <span style='color:gray'>%1:%2</span>")
                             .arg(esc(file))
                             .arg(frame.line);
        } else {
            // Unresolved native frame: module+offset, what a symbolizer needs later.
            QString module = QStringLiteral("?");
            int64_t offset = frame.address;
            for (const model::ModuleInfo& info : modules)
                if (info.id == frame.moduleId) {
                    module = QFileInfo(QString::fromStdString(info.path)).fileName();
                    offset = frame.address - info.loadBias;
                    break;
                }
            where = QStringLiteral("%1+0x%2").arg(esc(module), QString::number(offset, 16));
        }
        html += QStringLiteral("<tr><td style='color:%1'>%2</td><td>%3</td></tr>")
                    .arg(python ? QStringLiteral("#2E7D32") : QStringLiteral("#546E7A"),
                         python ? QStringLiteral("py") : QStringLiteral("native"), where);
    }
    html += QStringLiteral("</table>");
    return html;
}

void EventDetailsWidget::showRange(qint64 startNs, qint64 endNs) {
    if (!m_session) {
        clear();
        return;
    }
    const RangeSummary summary = RangeSummary::compute(*m_session, startNs, endNs);
    QString html = QStringLiteral("<h3 style='margin:2px 0'>%1</h3>")
                       .arg(tr("Range %1").arg(durationText(summary.durationNs())));
    html += QStringLiteral("<table cellspacing='0' cellpadding='1'>");
    html += row(tr("From"), time(summary.startNs));
    html += row(tr("To"), time(summary.endNs));
    html +=
        row(tr("GPU busy (range)"), QStringLiteral("<b>%1</b>").arg(share(summary.gpuBusyShare)));
    for (const RangeSummary::Device& device : summary.devices)
        html += row(
            QStringLiteral("  ") + device.label,
            QStringLiteral("%1 (%2)").arg(share(device.busyShare), durationText(device.busyNs)));
    html += row(tr("Host blocked"),
                QStringLiteral("<b>%1</b> in %2 syncs (%3 of the range)")
                    .arg(durationText(summary.blockedNs))
                    .arg(summary.hostSyncs)
                    .arg(share(static_cast<double>(summary.blockedNs) /
                               std::max<double>(1.0, static_cast<double>(summary.durationNs())))));
    for (int kind = 1; kind <= format::kSyncKindMax; ++kind)
        if (summary.syncsByKind[kind] > 0)
            html += row(QStringLiteral("  ") + syncKindName(kind),
                        QString::number(summary.syncsByKind[kind]));
    auto count = [](int64_t n) { return QString::fromStdString(model::formatCount(n)); };
    html += row(tr("API calls"), count(summary.apiCalls));
    html += row(tr("Kernels"), count(summary.kernels));
    html += row(tr("Memcpys"), count(summary.memcpys));
    html += row(tr("Memsets"), count(summary.memsets));
    html += row(tr("NVTX ranges"), count(summary.ranges));
    html += QStringLiteral("</table>");
    m_browser->setHtml(html);
}

} // namespace stallscope::views
