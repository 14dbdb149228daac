#include "views/dialogs/record_dialog.h"

#include "format/run_folder.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>

#include <algorithm>
#include <csignal>

namespace stallscope::views {

RecordDialog::RecordDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Record a Program"));
    auto* form = new QFormLayout;
    m_program = new QLineEdit(this);
    m_program->setPlaceholderText(tr("python3, ./my_cuda_app, …"));
    auto* browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Program"));
        if (!path.isEmpty())
            m_program->setText(path);
    });
    auto* programRow = new QHBoxLayout;
    programRow->addWidget(m_program);
    programRow->addWidget(browse);
    form->addRow(tr("Program:"), programRow); // a layout field takes no mnemonic buddy
    m_arguments = new QLineEdit(this);
    m_arguments->setPlaceholderText(tr("train.py --epochs 1 (quotes group words)"));
    form->addRow(tr("&Arguments:"), m_arguments);
    m_directory = new QLineEdit(QDir::currentPath(), this);
    form->addRow(tr("&Working directory:"), m_directory);
    m_environment = new QPlainTextEdit(this);
    m_environment->setPlaceholderText(tr("One KEY=VALUE per line, added to this environment"));
    m_environment->setMaximumHeight(70);
    form->addRow(tr("&Environment:"), m_environment);
    m_output = new QLineEdit(freshSessionPath(QDir::currentPath()), this);
    m_confirmReplace = [this](const QString& path) {
        return QMessageBox::question(this, tr("Replace Session?"),
                                     tr("%1 exists. Replace it once the new recording is "
                                        "complete?")
                                         .arg(path)) == QMessageBox::Yes;
    };
    form->addRow(tr("&Session file:"), m_output);
    m_stacks = new QCheckBox(tr("Capture call stacks at syncs (native and Python)"), this);
    m_stacks->setChecked(true);
    m_symbolize = new QCheckBox(tr("Resolve source lines and embed sources when it ends"), this);
    m_symbolize->setChecked(true);
    // stallscope-record --mode light (docs/recorder.md): what it leaves out, and what it costs.
    m_light = new QCheckBox(tr("&Light mode: syncs and GPU work only, no API call records "
                               "(lowest overhead; launch times inferred)"),
                            this);
    form->addRow(QString(), m_stacks);
    form->addRow(QString(), m_symbolize);
    form->addRow(QString(), m_light);
    addCaptureRows(form);

    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_error->hide();
    m_log = new QPlainTextEdit(this);
    m_log->setReadOnly(true);
    m_log->setPlaceholderText(tr("The program's output appears here while it runs."));

    auto* buttons = new QDialogButtonBox(this);
    m_record = buttons->addButton(tr("&Record"), QDialogButtonBox::AcceptRole);
    m_stop = buttons->addButton(tr("&Stop"), QDialogButtonBox::ActionRole);
    buttons->addButton(QDialogButtonBox::Close);
    connect(m_record, &QPushButton::clicked, this, &RecordDialog::startRecording);
    connect(m_stop, &QPushButton::clicked, this, &RecordDialog::stopRecording);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    // Said before anything is typed (issue 42): what recording needs.
    auto* needs = new QLabel(
        tr("Records a program that uses an NVIDIA GPU through CUDA (PyTorch included): it needs "
           "the NVIDIA driver and a GPU on this machine. A Python program's output shows here as "
           "it runs."),
        this);
    needs->setObjectName(QStringLiteral("recordNeeds"));
    needs->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(needs);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(m_log, 1);
    layout->addWidget(buttons);
    resize(720, 560);
    updateButtons();
}

RecordDialog::~RecordDialog() {
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

QString RecordDialog::findRecorder() {
    const QString here = QCoreApplication::applicationDirPath();
    for (const QString& candidate : {here + QStringLiteral("/stallscope-record"),
                                     here + QStringLiteral("/../recorder/stallscope-record")})
        if (QFileInfo(candidate).isExecutable())
            return QFileInfo(candidate).canonicalFilePath();
    return QStandardPaths::findExecutable(QStringLiteral("stallscope-record"));
}

void RecordDialog::setProgram(const QString& program, const QStringList& arguments) {
    m_program->setText(program);
    QStringList quoted;
    for (const QString& argument : arguments)
        quoted << (argument.contains(QLatin1Char(' '))
                       ? QLatin1Char('"') + argument + QLatin1Char('"')
                       : argument);
    m_arguments->setText(quoted.join(QLatin1Char(' ')));
}

void RecordDialog::setWorkingDirectory(const QString& directory) {
    m_directory->setText(directory);
}

void RecordDialog::setOutputFile(const QString& path) {
    m_output->setText(path);
}

void RecordDialog::setEnvironment(const QStringList& keyValues) {
    m_environment->setPlainText(keyValues.join(QLatin1Char('\n')));
}

void RecordDialog::setLightMode(bool light) {
    m_light->setChecked(light);
}

QString RecordDialog::freshSessionPath(const QString& directory) {
    const QDir dir(directory);
    for (int n = 1;; ++n) {
        const QString stem = n == 1 ? QStringLiteral("run") : QStringLiteral("run-%1").arg(n);
        // stallscope-record writes "<stem>.recording.stallscope" while it runs, and a run of
        // several CUDA processes ends as the folder "<stem>".
        if (!dir.exists(stem + QStringLiteral(".stallscope")) &&
            !dir.exists(stem + QStringLiteral(".recording.stallscope")) && !dir.exists(stem))
            return dir.filePath(stem + QStringLiteral(".stallscope"));
    }
}

QString RecordDialog::recordedOutput(const QString& sessionPath) {
    if (QFileInfo(sessionPath).isFile())
        return sessionPath;
    const QString folder = QString::fromStdString(format::runFolderOf(sessionPath.toStdString()));
    return QFileInfo(folder).isDir() ? folder : QString();
}

// Part of a long run, as Nsight Systems users know it (docs/recorder.md, "Recording part of a
// run"): the captured range, a delay before recording and a duration.
void RecordDialog::addCaptureRows(QFormLayout* form) {
    m_captureRange = new QComboBox(this);
    m_captureRange->addItem(tr("The whole run"), QString());
    m_captureRange->addItem(tr("Between cudaProfilerStart and cudaProfilerStop "
                               "(torch.cuda.profiler.start/stop)"),
                            QStringLiteral("cuda-profiler-api"));
    m_captureRange->addItem(tr("Inside the NVTX range named:"), QStringLiteral("nvtx:"));
    m_nvtxRange = new QLineEdit(this);
    m_nvtxRange->setPlaceholderText(tr("train_step"));
    auto* rangeRow = new QHBoxLayout;
    rangeRow->addWidget(m_captureRange, 1);
    rangeRow->addWidget(m_nvtxRange);
    form->addRow(tr("Record:"), rangeRow);
    // --capture-steps: each range is a step; only some of them are recorded.
    auto step = [this](const QString& none) {
        auto* box = new QSpinBox(this);
        box->setRange(0, 1'000'000'000);
        box->setSpecialValueText(none);
        return box;
    };
    m_firstStep = step(tr("every range"));
    m_lastStep = step(tr("the same"));
    m_firstStep->setToolTip(tr("Each range is a step, counted from 1: record only steps "
                               "from the first to the last given (stallscope-record "
                               "--capture-steps)"));
    auto* stepsLabel = new QLabel(tr("steps"), this);
    auto* toLabel = new QLabel(tr("to"), this);
    auto* stepRow = new QHBoxLayout;
    stepRow->addWidget(stepsLabel);
    stepRow->addWidget(m_firstStep);
    stepRow->addWidget(toLabel);
    stepRow->addWidget(m_lastStep);
    stepRow->addStretch(1);
    form->addRow(tr("Ranges:"), stepRow);
    auto seconds = [this](const QString& none) {
        auto* box = new QDoubleSpinBox(this);
        box->setRange(0, 1'000'000);
        box->setDecimals(1);
        box->setSuffix(tr(" s"));
        box->setSpecialValueText(none);
        return box;
    };
    m_delay = seconds(tr("no delay"));
    m_duration = seconds(tr("until it ends"));
    auto* timeRow = new QHBoxLayout;
    timeRow->addWidget(new QLabel(tr("after"), this));
    timeRow->addWidget(m_delay);
    timeRow->addWidget(new QLabel(tr("for"), this));
    timeRow->addWidget(m_duration);
    timeRow->addStretch(1);
    form->addRow(tr("Time:"), timeRow);
    // A long job: keep only the last seconds; SIGUSR1 or a slow step writes them out.
    m_ring = seconds(tr("everything"));
    m_ring->setRange(0, 86'400);
    m_ring->setPrefix(tr("the last "));
    m_ring->setToolTip(tr("Flight recorder: keep only the last seconds of the run; "
                          "SIGUSR1 to stallscope-record writes a snapshot of them"));
    m_slowStep = new QDoubleSpinBox(this);
    m_slowStep->setRange(1, 1000);
    m_slowStep->setDecimals(1);
    m_slowStep->setPrefix(tr("a step over "));
    m_slowStep->setSuffix(tr(" × the median"));
    m_slowStep->setSpecialValueText(tr("no slow step"));
    auto* ringRow = new QHBoxLayout;
    ringRow->addWidget(m_ring);
    auto* snapshots = new QLabel(tr("snapshots on SIGUSR1 and"), this);
    ringRow->addWidget(snapshots);
    ringRow->addWidget(m_slowStep);
    ringRow->addStretch(1);
    form->addRow(tr("Keep:"), ringRow);
    auto ringOn = [this, snapshots] {
        snapshots->setEnabled(m_ring->value() > 0);
        m_slowStep->setEnabled(m_ring->value() > 0);
    };
    connect(m_ring, &QDoubleSpinBox::valueChanged, this, ringOn);
    ringOn();
    auto showName = [this, stepsLabel, toLabel] {
        const QString range = m_captureRange->currentData().toString();
        m_nvtxRange->setEnabled(range.startsWith(QStringLiteral("nvtx:")));
        // The steps are a range's occurrences.
        stepsLabel->setEnabled(!range.isEmpty());
        m_firstStep->setEnabled(!range.isEmpty());
        toLabel->setEnabled(!range.isEmpty() && m_firstStep->value() > 0);
        m_lastStep->setEnabled(!range.isEmpty() && m_firstStep->value() > 0);
    };
    connect(m_firstStep, &QSpinBox::valueChanged, this, showName);
    connect(m_captureRange, &QComboBox::currentIndexChanged, this, showName);
    showName();
}

void RecordDialog::setCapture(const QString& range, double delaySeconds, double durationSeconds) {
    const bool nvtx = range.startsWith(QStringLiteral("nvtx:"));
    m_captureRange->setCurrentIndex(
        std::max(0, m_captureRange->findData(nvtx ? QStringLiteral("nvtx:") : range)));
    m_nvtxRange->setText(nvtx ? range.mid(5) : QString());
    m_delay->setValue(delaySeconds);
    m_duration->setValue(durationSeconds);
}

void RecordDialog::setCaptureSteps(int firstStep, int lastStep) {
    m_firstStep->setValue(firstStep);
    m_lastStep->setValue(lastStep);
}

void RecordDialog::setFlightRecorder(double ringSeconds, double slowStepFactor) {
    m_ring->setValue(ringSeconds);
    m_slowStep->setValue(std::max(1.0, slowStepFactor));
}

QStringList RecordDialog::recorderArguments(bool overwrite) const {
    QStringList arguments = {QStringLiteral("-o"), m_output->text()};
    if (overwrite)
        arguments << QStringLiteral("--force-overwrite");
    if (!m_stacks->isChecked())
        arguments << QStringLiteral("--no-stacks");
    if (m_light->isChecked())
        arguments << QStringLiteral("--mode") << QStringLiteral("light");
    if (!m_symbolize->isChecked())
        arguments << QStringLiteral("--no-symbolize");
    if (QString range = m_captureRange->currentData().toString(); !range.isEmpty()) {
        if (range == QStringLiteral("nvtx:"))
            range += m_nvtxRange->text().trimmed();
        arguments << QStringLiteral("--capture-range") << range;
        if (const int first = m_firstStep->value(); first > 0)
            arguments << QStringLiteral("--capture-steps")
                      << QStringLiteral("%1-%2").arg(first).arg(
                             std::max(first, m_lastStep->value()));
    }
    if (m_delay->value() > 0)
        arguments << QStringLiteral("--delay") << QString::number(m_delay->value());
    if (m_duration->value() > 0)
        arguments << QStringLiteral("--duration") << QString::number(m_duration->value());
    if (m_ring->value() > 0) {
        arguments << QStringLiteral("--ring") << QString::number(m_ring->value());
        if (m_slowStep->value() >= 2) // below: the special value, no trigger
            arguments << QStringLiteral("--trigger-slow-step")
                      << QString::number(m_slowStep->value());
    }
    arguments << QStringLiteral("--") << m_program->text().trimmed()
              << QProcess::splitCommand(m_arguments->text());
    return arguments;
}

bool RecordDialog::startRecording() {
    if (isRecording())
        return false;
    m_error->hide();
    m_recorder = m_recorderOverride.value_or(findRecorder());
    if (m_recorder.isEmpty()) {
        showError(tr("stallscope-record was not found next to this program or on PATH. It needs "
                     "the CUDA Toolkit with CUPTI: install it, then run ./scripts/run-sample.sh "
                     "again (it builds the recorder when CUDA is found), or build it with "
                     "`cmake --build build/release --target stallscope-record`."));
        return false;
    }
    if (m_program->text().trimmed().isEmpty()) {
        showError(tr("Choose a program to record."));
        return false;
    }
    if (m_output->text().trimmed().isEmpty()) {
        showError(tr("Choose where to write the session file."));
        return false;
    }
    const QString directory = m_directory->text().trimmed();
    if (!directory.isEmpty() && !QFileInfo(directory).isDir()) {
        showError(tr("%1: no such working directory").arg(directory));
        return false;
    }
    // stallscope-record refuses an existing file or run folder of this name unless told; the old
    // one stays until the new recording is complete.
    const QString existing = recordedOutput(m_output->text());
    const bool overwrite = !existing.isEmpty();
    if (overwrite && !m_confirmReplace(existing)) {
        showError(tr("%1 exists: choose another session file.").arg(existing));
        return false;
    }
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    // Python writes its output in blocks to a pipe: line by line, it shows here as it runs.
    if (!environment.contains(QStringLiteral("PYTHONUNBUFFERED")))
        environment.insert(QStringLiteral("PYTHONUNBUFFERED"), QStringLiteral("1"));
    for (const QString& line : m_environment->toPlainText().split(QLatin1Char('\n'))) {
        const QString entry = line.trimmed();
        if (entry.isEmpty())
            continue;
        const qsizetype equals = entry.indexOf(QLatin1Char('='));
        if (equals <= 0) {
            showError(tr("Environment line \"%1\" is not KEY=VALUE").arg(entry));
            return false;
        }
        environment.insert(entry.left(equals), entry.mid(equals + 1));
    }
    m_log->clear();
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setProcessEnvironment(environment);
    if (!directory.isEmpty())
        m_process->setWorkingDirectory(directory);
    connect(m_process, &QProcess::readyRead, this, &RecordDialog::appendOutput);
    connect(m_process, &QProcess::finished, this, &RecordDialog::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            showError(tr("%1: cannot start (%2)").arg(m_recorder, m_process->errorString()));
    });
    QStringList shown;
    const QStringList arguments = recorderArguments(overwrite);
    for (const QString& argument : arguments)
        shown << (argument.contains(QLatin1Char(' '))
                      ? QLatin1Char('\'') + argument + QLatin1Char('\'')
                      : argument);
    m_log->appendPlainText(
        QStringLiteral("$ %1 %2\n").arg(m_recorder, shown.join(QLatin1Char(' '))));
    m_process->start(m_recorder, arguments);
    updateButtons();
    return true;
}

void RecordDialog::stopRecording() {
    // stallscope-record forwards SIGTERM to the program (SIGINT it leaves to the terminal's process
    // group, which a GUI launch has not) and still finalizes the session, marked as stopped.
    if (isRecording())
        ::kill(pid_t(m_process->processId()), SIGTERM);
}

bool RecordDialog::isRecording() const {
    return m_process && m_process->state() != QProcess::NotRunning;
}

QString RecordDialog::outputText() const {
    return m_log->toPlainText();
}

QString RecordDialog::errorText() const {
    return m_error->isHidden() ? QString() : m_error->text();
}

void RecordDialog::appendOutput() {
    m_log->moveCursor(QTextCursor::End);
    m_log->insertPlainText(QString::fromLocal8Bit(m_process->readAll()));
    m_log->moveCursor(QTextCursor::End);
}

void RecordDialog::onFinished(int exitCode, QProcess::ExitStatus status) {
    appendOutput();
    m_process->deleteLater();
    m_process = nullptr;
    updateButtons();
    const QString session = m_output->text();
    const QString recorded = recordedOutput(session);
    // stallscope-record's own exit codes (its --help): 127 the program could not run, 2 the
    // session file cannot be written (the program was not started), 125 the session could not be
    // finished. It said why in the log.
    if (status != QProcess::NormalExit || exitCode == 127 || exitCode == 2 || exitCode == 125 ||
        recorded.isEmpty()) {
        showError(status != QProcess::NormalExit
                      ? tr("stallscope-record crashed; see the output below.")
                  : exitCode == 127 ? tr("The program could not be run; see the output below.")
                  : exitCode == 2
                      ? tr("%1 cannot be written, so the program was not started; see the output "
                           "below.")
                            .arg(session)
                      : tr("%1: no session was written; see the output below.").arg(session));
        return;
    }
    if (exitCode != 0)
        m_log->appendPlainText(
            tr("\nThe program exited with status %1; its session is opened anyway.").arg(exitCode));
    emit sessionRecorded(recorded);
}

void RecordDialog::showError(const QString& error) {
    m_error->setText(error);
    m_error->show();
    emit recordingFailed(error);
}

void RecordDialog::updateButtons() {
    m_record->setEnabled(!isRecording());
    m_stop->setEnabled(isRecording());
}

} // namespace stallscope::views
