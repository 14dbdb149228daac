// RecordDialog: File ▸ Record — runs a program under `stallscope-record` (program, arguments,
// working directory, environment, output file, stacks and symbolization), shows its output while
// it runs, can stop it (SIGTERM, forwarded to the program), and hands the finished session to the
// main window.
// Errors (no recorder, a program that cannot start, a missing session) are shown in the dialog.
#pragma once

#include <QDialog>
#include <QProcess>

#include <functional>
#include <optional>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QDoubleSpinBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace stallscope::views {

class RecordDialog : public QDialog {
    Q_OBJECT
public:
    explicit RecordDialog(QWidget* parent = nullptr);
    ~RecordDialog() override;

    // stallscope-record next to this executable (installed: bin/; build tree: ../recorder/), else
    // on PATH; empty when there is none. Looked up at every Record, so a recorder built while the
    // app runs is found.
    static QString findRecorder();
    // A fixed recorder instead of the lookup (tests; empty: "not built").
    void setRecorderPath(const QString& path) { m_recorderOverride = path; }
    // "run.stallscope" in `directory`, else "run-2.stallscope", ...: the first name that neither
    // exists, nor has an unfinished recording beside it, nor a run folder of that name.
    static QString freshSessionPath(const QString& directory);
    // What a finished recording to `sessionPath` left: the session file, else the run folder of a
    // program whose several processes used CUDA (torchrun, mpirun, multiprocessing); empty when
    // neither exists.
    static QString recordedOutput(const QString& sessionPath);
    // Asked before an existing session file is replaced (default: a message box); true replaces.
    void setReplaceConfirmation(std::function<bool(const QString& path)> confirm) {
        m_confirmReplace = std::move(confirm);
    }

    // The form, for tests and for pre-filling.
    void setProgram(const QString& program, const QStringList& arguments = {});
    void setWorkingDirectory(const QString& directory);
    void setOutputFile(const QString& path);
    void setEnvironment(const QStringList& keyValues);
    void setLightMode(bool light);
    // Capture control (stallscope-record --capture-range, --delay, --duration; 0 s: none):
    // `range` is "" (everything), "cuda-profiler-api" or "nvtx:NAME".
    void setCapture(const QString& range, double delaySeconds, double durationSeconds);
    // --capture-steps: the range's occurrences firstStep..lastStep only (0: every one).
    void setCaptureSteps(int firstStep, int lastStep);
    // The flight recorder (stallscope-record --ring, --trigger-slow-step; 0: none).
    void setFlightRecorder(double ringSeconds, double slowStepFactor);

    // Starts recording (the Record button). False, with the reason shown, when it cannot start.
    bool startRecording();
    void stopRecording();
    bool isRecording() const;
    QString outputText() const;
    QString errorText() const;

signals:
    // The recorder finished and wrote a session or a run folder (also for a target that exited
    // non-zero): `sessionPath` is what to open.
    void sessionRecorded(const QString& sessionPath);
    void recordingFailed(const QString& error);

private:
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void appendOutput();
    void showError(const QString& error);
    void updateButtons();
    QStringList recorderArguments(bool overwrite) const;
    void addCaptureRows(QFormLayout* form);

    QString m_recorder; // the one the current run uses
    std::optional<QString> m_recorderOverride;
    std::function<bool(const QString&)> m_confirmReplace;
    QLineEdit* m_program = nullptr;
    QLineEdit* m_arguments = nullptr;
    QLineEdit* m_directory = nullptr;
    QPlainTextEdit* m_environment = nullptr;
    QLineEdit* m_output = nullptr;
    QCheckBox* m_stacks = nullptr;
    QCheckBox* m_symbolize = nullptr;
    QCheckBox* m_light = nullptr;
    QComboBox* m_captureRange = nullptr; // everything, profiler API, NVTX range
    QLineEdit* m_nvtxRange = nullptr;    // the NVTX range's name
    QSpinBox* m_firstStep = nullptr;     // 0: every range
    QSpinBox* m_lastStep = nullptr;
    QDoubleSpinBox* m_delay = nullptr;
    QDoubleSpinBox* m_duration = nullptr;
    QDoubleSpinBox* m_ring = nullptr;
    QDoubleSpinBox* m_slowStep = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QLabel* m_error = nullptr;
    QPushButton* m_record = nullptr;
    QPushButton* m_stop = nullptr;
    QProcess* m_process = nullptr;
};

} // namespace stallscope::views
