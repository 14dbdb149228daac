// EventDetailsWidget: a kernel's launch parameters, a copy's bytes and direction, a sync's kind,
// blocked time, waited-for work, launching call and stack (Python, native, unresolved), and the
// summary of a time range.
#include "format/session_writer.h"
#include "model/session/session.h"
#include "model/session/session_loader.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"
#include "views/panels/event_details_widget.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace stallscope;
using namespace stallscope::views;

namespace {

constexpr int64_t kT0 = 2'000'000'000;

// One thread, one stream: a launch + kernel, a cudaMemcpyAsync + DtoH copy, and a stream sync
// with a three-frame stack.
bool writeFixture(const QString& path, QString* error) {
    using namespace stallscope::format;
    std::string message;
    auto writer = SessionWriter::create(path.toStdString(), &message);
    if (!writer) {
        *error = QString::fromStdString(message);
        return false;
    }
    ProcessRow process;
    process.pid = 7;
    process.startNs = kT0;
    process.endNs = kT0 + 1'000'000;
    const int64_t pid = writer->addProcess(process);
    const int64_t thread = writer->addThread({pid, 7, "python"});
    DeviceRow device;
    device.processId = pid;
    device.name = "GPU";
    const int64_t gpu = writer->addDevice(device);
    const int64_t stream = writer->addStream({gpu, 1, 7, false, 0});
    const int64_t launch = writer->internString("cudaLaunchKernel");
    const int64_t copyCall = writer->internString("cudaMemcpyAsync");
    const int64_t syncCall = writer->internString("cudaStreamSynchronize");
    writer->addApiCall({thread, ApiDomain::Runtime, 211, launch, kT0 + 1'000, kT0 + 5'000, 1, 0});
    KernelRow kernel;
    kernel.streamId = stream;
    kernel.nameId = writer->internString("gemm_kernel");
    kernel.startNs = kT0 + 10'000;
    kernel.endNs = kT0 + 400'000;
    kernel.correlationId = 1;
    kernel.grid[0] = 64;
    kernel.block[0] = 256;
    kernel.registersPerThread = 32;
    writer->addKernel(kernel);
    writer->addApiCall({thread, ApiDomain::Runtime, 41, copyCall, kT0 + 6'000, kT0 + 8'000, 2, 0});
    MemcpyRow copy;
    copy.streamId = stream;
    copy.startNs = kT0 + 400'000;
    copy.endNs = kT0 + 410'000;
    copy.correlationId = 2;
    copy.copyKind = CopyKind::DtoH;
    copy.srcKind = MemoryKind::Device;
    copy.dstKind = MemoryKind::Pinned;
    copy.bytes = 4096;
    writer->addMemcpy(copy);
    // Rows: process, path, load bias, start, end, build id, load time.
    const int64_t moduleId =
        writer->addModule({pid, "/usr/lib/x86_64-linux-gnu/libcuda.so.1", 0x7f0000000000,
                           0x7f0000000000, 0x7f0001000000, "", 0});
    const int64_t torchId =
        writer->addModule({pid, "/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so",
                           0x7e0000000000, 0x7e0000000000, 0x7e0010000000, "", 0});
    FrameRow driver; // the driver calling the recorder's callback: hidden
    driver.address = 0x7f0000001234;
    driver.moduleId = moduleId;
    FrameRow unresolved;
    unresolved.address = 0x7e0000005678;
    unresolved.moduleId = torchId;
    FrameRow native;
    native.address = 0x7e0000002000;
    native.moduleId = torchId;
    native.function = "at::native::_local_scalar_dense_cuda";
    native.file = "/pytorch/aten/src/ATen/native/cuda/Dense.cu";
    native.line = 30;
    FrameRow python;
    python.kind = FrameKind::Python;
    python.function = "train_step";
    python.file = "/home/me/train.py";
    python.line = 42;
    const int64_t frames[] = {writer->addFrame(driver), writer->addFrame(native),
                              writer->addFrame(unresolved), writer->addFrame(python)};
    const int64_t stack = writer->addStack(0x1234, frames);
    writer->addApiCall(
        {thread, ApiDomain::Runtime, 131, syncCall, kT0 + 9'000, kT0 + 420'000, 3, 0});
    SyncRow sync;
    sync.threadId = thread;
    sync.kind = SyncKind::Stream;
    sync.startNs = kT0 + 9'000;
    sync.endNs = kT0 + 420'000;
    sync.correlationId = 3;
    sync.streamId = stream;
    sync.stackId = stack;
    writer->addSync(sync);
    if (!writer->finish("complete")) {
        *error = QString::fromStdString(writer->lastError());
        return false;
    }
    return true;
}

} // namespace

class EventDetailsTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_path;
    std::shared_ptr<const model::Session> m_session;

    model::EventRef ref(model::EventKind kind, uint32_t index = 0) {
        model::EventRef event;
        event.kind = kind;
        event.lane = 0;
        event.index = index;
        return event;
    }

    // The details panel's text for the first event of a kind, with the session file at hand.
    QString detailsText(model::EventKind kind) {
        EventDetailsWidget details;
        details.setSession(m_session);
        details.showEventDetails(ref(kind));
        return details.text();
    }

    // Three syncs of one site: 5, 30 and 10 µs long, in that order. Null when the session cannot
    // be written or loaded (which fails the test).
    std::shared_ptr<const model::Session> threeSyncs() {
        using namespace stallscope::format;
        const QString path = m_dir.filePath(QStringLiteral("three.stallscope"));
        std::string message;
        auto writer = SessionWriter::create(path.toStdString(), &message);
        if (!writer) {
            STALLSCOPE_FAIL("cannot create %s: %s", qPrintable(path), message.c_str());
            return nullptr;
        }
        ProcessRow process;
        process.pid = 8;
        process.startNs = kT0;
        process.endNs = kT0 + 1'000'000;
        const int64_t thread = writer->addThread({writer->addProcess(process), 8, "python"});
        const int64_t lengths[] = {5'000, 30'000, 10'000};
        for (int i = 0; i < 3; ++i) {
            SyncRow sync;
            sync.threadId = thread;
            sync.kind = SyncKind::Device;
            sync.startNs = kT0 + 100'000 * (i + 1);
            sync.endNs = sync.startNs + lengths[i];
            sync.correlationId = i + 1;
            writer->addSync(sync);
        }
        if (!writer->finish("complete")) {
            STALLSCOPE_FAIL("cannot finish %s: %s", qPrintable(path), writer->lastError().c_str());
            return nullptr;
        }
        model::LoadResult loaded = model::SessionLoader::load(path.toStdString());
        if (!loaded.ok()) {
            STALLSCOPE_FAIL("cannot load %s: %s", qPrintable(path), loaded.error.c_str());
            return nullptr;
        }
        return std::shared_ptr<const model::Session>(std::move(loaded.session));
    }

private slots:
    // A site's syncs: the details offer its first, median and slowest one (issue 42: the first
    // was shown, and it is not the typical one); one sync alone offers no choice.
    void firstMedianOrSlowestSync() {
        const auto session = threeSyncs();
        QVERIFY(session);
        model::EventRef first = ref(model::EventKind::Sync, 0);
        const model::EventSpans syncs = {{first, 3}};
        EventDetailsWidget details;
        details.setSession(session, false);
        const model::EventRef median = model::medianEvent(*session, syncs, model::EventKind::Sync);
        QCOMPARE(median.index, uint32_t(2)); // 10 µs
        details.setChoices(syncs, median);
        const auto buttons = details.findChildren<QToolButton*>();
        QCOMPARE(buttons.size(), 3);
        QVERIFY(!buttons[0]->parentWidget()->isHidden());
        QVERIFY(buttons[1]->isChecked()); // the median is what is shown
        QSignalSpy chosen(&details, &EventDetailsWidget::syncChosen);
        buttons[2]->click();
        buttons[0]->click();
        QCOMPARE(chosen.count(), 2);
        QCOMPARE(chosen[0][0].value<model::EventRef>().index, uint32_t(1)); // slowest: 30 µs
        QCOMPARE(chosen[1][0].value<model::EventRef>().index, uint32_t(0)); // first
        details.setChoices({{first, 1}}, first);
        QVERIFY(buttons[0]->parentWidget()->isHidden());
        details.setChoices(syncs, median);
        details.clear(); // nothing selected: no choice
        QVERIFY(buttons[0]->parentWidget()->isHidden());
    }

    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("details.stallscope"));
        QString error;
        QVERIFY2(writeFixture(m_path, &error), qPrintable(error));
        model::LoadResult result = model::SessionLoader::load(m_path.toStdString());
        QVERIFY2(result.ok(), result.error.c_str());
        m_session = std::shared_ptr<const model::Session>(std::move(result.session));
    }

    void kernel() {
        const QString text = detailsText(model::EventKind::Kernel);
        QVERIFY2(text.contains(QStringLiteral("gemm_kernel")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("Kernel")));
        QVERIFY(text.contains(QStringLiteral("stream 7")));
        QVERIFY(text.contains(QStringLiteral("(64, 1, 1)")));
        QVERIFY(text.contains(QStringLiteral("(256, 1, 1)")));
        QVERIFY(text.contains(QStringLiteral("390")));         // 390 µs duration
        QVERIFY(text.contains(QStringLiteral("0.010000 ms"))); // start since the session start
        QVERIFY(text.contains(QStringLiteral("Correlation id")));
    }

    void copy() {
        const QString text = detailsText(model::EventKind::Memcpy);
        QVERIFY2(text.contains(QStringLiteral("Memcpy DtoH")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("4 KiB")) || text.contains(QStringLiteral("4.0 KiB")));
        QVERIFY(text.contains(QStringLiteral("device → pinned")));
    }

    void syncWithStackAndLink() {
        const QString text = detailsText(model::EventKind::Sync);
        QVERIFY2(text.contains(QStringLiteral("stream synchronize")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("Blocked")));
        QVERIFY(text.contains(QStringLiteral("411"))); // 411 µs blocked
        QVERIFY(text.contains(QStringLiteral("Waited for")));
        QVERIFY(text.contains(QStringLiteral("Memcpy DtoH")));
        QVERIFY(text.contains(QStringLiteral("Launched by")));
        QVERIFY(text.contains(QStringLiteral("cudaMemcpyAsync")));
        QVERIFY(text.contains(QStringLiteral("train_step")));
        QVERIFY(text.contains(QStringLiteral("train.py:42")));
        QVERIFY(text.contains(QStringLiteral("_local_scalar_dense_cuda")));
        QVERIFY(text.contains(QStringLiteral("libtorch_cuda.so+0x5678")));
        QVERIFY(text.contains(QStringLiteral("1 recorder/CUPTI/driver frame")));
        QVERIFY(!text.contains(QStringLiteral("libcuda.so.1+0x1234")));
    }

    void rangeSummary() {
        EventDetailsWidget details;
        details.setSession(m_session);
        details.showRange(kT0, kT0 + 500'000);
        const QString text = details.text();
        QVERIFY2(text.contains(QStringLiteral("GPU busy")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("80.0 %"))); // 400 µs of 500 µs
        QVERIFY(text.contains(QStringLiteral("Host blocked")));
        QVERIFY(text.contains(QStringLiteral("stream synchronize")));
        details.clear();
        QVERIFY(!details.text().contains(QStringLiteral("GPU busy")));
    }

    void withoutTheFile() {
        // No file read: details still show, stack and launch parameters say why they are missing.
        EventDetailsWidget details;
        details.setSession(m_session, false);
        details.showEventDetails(ref(model::EventKind::Sync));
        QVERIFY(details.text().contains(QStringLiteral("Stack unavailable")));
        details.showEventDetails(model::EventRef()); // invalid: cleared
        QVERIFY(!details.text().contains(QStringLiteral("Stack")));
    }
};

STALLSCOPE_TEST_MAIN(EventDetailsTest)
#include "tst_event_details.moc"
