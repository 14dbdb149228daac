// A small session that makes the insight engine speak, for the insight-card, source, stack and
// main-window tests. Written with format::SessionWriter; every number is chosen by hand.
//
// One thread runs kSteps training steps: kLaunchesPerStep kernel launches (alternating gemm /
// relu, 100 µs kernels), then `loss.item()` at train.py:48 blocks 1 ms in a stream sync — an
// in-loop sync. Every third step also syncs at model.py:12 (a device sync). train.py is
// embedded in the session; model.py is not (the source view must offer path remapping).
// Stacks: an unresolved libcuda frame, the Python frame of the sync line, then its caller.
#pragma once

#include "format/session_writer.h"
#include "model/session/session_database.h"
#include "tests/support/hand_written_session.h"
#include "tests/support/test_failure.h"
#include "tests/support/write_file.h"

#include <QDir>
#include <QString>
#include <QTemporaryDir>

#include <sqlite3.h>

#include <memory>
#include <string>

namespace insight_session {

inline constexpr int64_t kStart = 2'000'000'000;
inline constexpr int kSteps = 10;
inline constexpr int kLaunchesPerStep = 4;
inline constexpr int64_t kStepNs = 2'000'000;
inline constexpr int64_t kSyncNs = 1'000'000;
inline constexpr int kTrainLine = 48;
inline constexpr int kCallerLine = 60;
inline constexpr int kModelLine = 12;
inline constexpr const char* kTrainPath = "/home/ci/proj/train.py";
inline constexpr const char* kModelPath = "/home/ci/proj/model.py";
inline constexpr const char* kRecordedDir = "/home/ci/proj";
inline constexpr const char* kSyncLineText = "        loss_value = loss.item()";
inline constexpr const char* kModelLineText = "    torch.cuda.synchronize()";
inline constexpr const char* kGemm = "ampere_sgemm_128x64_nn";
inline constexpr const char* kRelu = "vectorized_elementwise_kernel<relu>";
inline constexpr int64_t kLibcudaBias = 0x7f0000000000;
inline constexpr int64_t kLibcudaOffset = 0x2a1b3;

// The embedded train.py: line kTrainLine holds kSyncLineText, line kCallerLine calls it.
inline std::string trainSource() {
    std::string text;
    for (int line = 1; line <= 70; ++line) {
        if (line == 1)
            text += "import torch";
        else if (line == 40)
            text += "def train_step(model, batch, optimizer):";
        else if (line == 46)
            text += "        loss = model(batch).mean()  # forward";
        else if (line == kTrainLine)
            text += kSyncLineText;
        else if (line == 58)
            text += "def train(model, loader):";
        else if (line == kCallerLine)
            text += "        train_step(model, batch, optimizer)";
        else
            text += "# line " + std::to_string(line);
        text += '\n';
    }
    return text;
}

// model.py as it would sit on the user's disk (not embedded).
inline std::string modelSource() {
    std::string text;
    for (int line = 1; line <= 20; ++line) {
        text +=
            line == kModelLine ? std::string(kModelLineText) : "# model " + std::to_string(line);
        text += '\n';
    }
    return text;
}

// The recorded sources as checked out on "this machine": model.py in `dir`/checkout. Returns that
// folder; empty when it cannot be written (which fails the test).
[[nodiscard]] inline QString writeCheckout(const QTemporaryDir& dir) {
    if (!QDir(dir.path()).mkpath(QStringLiteral("checkout"))) {
        STALLSCOPE_FAIL("cannot create %s/checkout", qPrintable(dir.path()));
        return {};
    }
    if (stallscope::testing::writeFile(dir, QStringLiteral("checkout/model.py"),
                                       QByteArray::fromStdString(modelSource()))
            .isEmpty())
        return {};
    return dir.filePath(QStringLiteral("checkout"));
}

inline bool write(const QString& path, QString* error) {
    using namespace stallscope::format;
    std::string message;
    auto writer = SessionWriter::create(path.toStdString(), &message);
    if (!writer) {
        *error = QString::fromStdString(message);
        return false;
    }
    const int64_t end = kStart + kSteps * kStepNs + 1'000'000;
    writer->setMeta("command", "python train.py");
    stallscope::testing::HandWrittenSession rows(*writer);
    const int64_t pid = rows.process(4242, "testhost", "python train.py", kStart, end);
    const int64_t thread = rows.thread(4242, "python");
    rows.h100("NVIDIA H100", "GPU-1");
    const int64_t stream = rows.stream(7);
    const int64_t libcuda =
        writer->addModule({pid, "/usr/lib/x86_64-linux-gnu/libcuda.so.1", kLibcudaBias,
                           kLibcudaBias, kLibcudaBias + 0x1000000, "", kStart});
    FrameRow driver;
    driver.address = kLibcudaBias + kLibcudaOffset;
    driver.moduleId = libcuda;
    const int64_t driverFrame = writer->addFrame(driver);
    const auto python = [&rows](const char* file, int line, const char* function) {
        return rows.pythonFrame(file, line, function);
    };
    const int64_t syncFrame = python(kTrainPath, kTrainLine, "train_step");
    const int64_t callerFrame = python(kTrainPath, kCallerLine, "train");
    const int64_t modelFrame = python(kModelPath, kModelLine, "forward");
    const int64_t trainFrames[] = {driverFrame, syncFrame, callerFrame};
    const int64_t modelFrames[] = {driverFrame, modelFrame, callerFrame};
    const int64_t trainStack = writer->addStack(1, trainFrames);
    const int64_t modelStack = writer->addStack(2, modelFrames);
    writer->addSource({kTrainPath, "", int64_t(trainSource().size()), false, trainSource()});

    const int64_t launchName = writer->internString("cudaLaunchKernel");
    const int64_t syncName = writer->internString("cudaStreamSynchronize");
    const int64_t deviceSyncName = writer->internString("cudaDeviceSynchronize");
    const int64_t gemm = writer->internString(kGemm);
    const int64_t relu = writer->internString(kRelu);
    for (int step = 0; step < kSteps; ++step) {
        const int64_t t0 = kStart + step * kStepNs;
        for (int k = 0; k < kLaunchesPerStep; ++k) {
            const int64_t t = t0 + k * 20'000;
            KernelRow kernel;
            kernel.streamId = stream;
            kernel.nameId = k % 2 ? relu : gemm;
            kernel.startNs = t0 + 50'000 + k * 200'000;
            kernel.endNs = kernel.startNs + 100'000;
            kernel.grid[0] = k % 2 ? 64 : 128;
            kernel.block[0] = 256;
            rows.launch(thread, launchName, t, t + 5'000, kernel);
        }
        const int64_t s = t0 + 100'000;
        rows.blockingCall(thread, 131, syncName, s, s + kSyncNs,
                          stallscope::testing::streamSync(stream, trainStack));
        if (step % 3 == 0) {
            const int64_t d = s + kSyncNs + 50'000;
            SyncRow device;
            device.kind = SyncKind::Device;
            device.stackId = modelStack;
            rows.blockingCall(thread, 165, deviceSyncName, d, d + 20'000, device);
        }
    }
    if (!writer->finish("complete")) {
        *error = QString::fromStdString(writer->lastError());
        return false;
    }
    writer.reset();
    // The symbolizer's user-frame flag: the two train.py frames are the user's code.
    sqlite3* db = nullptr;
    if (sqlite3_open(path.toUtf8().constData(), &db) != SQLITE_OK) {
        *error = QStringLiteral("cannot reopen %1").arg(path);
        sqlite3_close(db);
        return false;
    }
    const std::string sql = "UPDATE frames SET is_user = (file = '" + std::string(kTrainPath) +
                            "' OR file = '" + kModelPath + "'), symbolized = 1";
    const bool ok = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    if (!ok)
        *error = QStringLiteral("cannot mark user frames in %1").arg(path);
    return ok;
}

// Writes the session as `dir`/run.stallscope (its path in *path) and opens its database; null when
// that fails (which fails the test).
[[nodiscard]] inline std::shared_ptr<stallscope::model::SessionDatabase>
writeAndOpen(const QTemporaryDir& dir, QString* path = nullptr) {
    const QString file = dir.filePath(QStringLiteral("run.stallscope"));
    QString error;
    if (!write(file, &error)) {
        STALLSCOPE_FAIL("cannot write %s: %s", qPrintable(file), qPrintable(error));
        return nullptr;
    }
    auto database = std::make_shared<stallscope::model::SessionDatabase>();
    std::string message;
    if (!database->open(file.toStdString(), &message)) {
        STALLSCOPE_FAIL("cannot open %s: %s", qPrintable(file), message.c_str());
        return nullptr;
    }
    if (path)
        *path = file;
    return database;
}

} // namespace insight_session
