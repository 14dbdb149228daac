// stallscope-screenshots as scripts/screenshots.sh runs it, offscreen on the bundled sample: each
// scenario writes a PNG of the window the size of its picture in docs/images/ that shows something
// (many colours), the dark palette's picture is darker than the light one's, bad usage exits 2 and
// a session that does not load exits 1 without a picture.
#include "tests/support/test_suite.h"
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

class ScreenshotsTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    struct Run {
        int exitCode = -1;
        QString err;
    };

    static Run run(const QStringList& arguments) {
        QProcess process;
        process.start(QStringLiteral(STALLSCOPE_SCREENSHOTS), arguments);
        if (!process.waitForFinished(120000)) {
            process.kill();
            process.waitForFinished();
            return {};
        }
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2,
                QString::fromUtf8(process.readAllStandardError())};
    }

    QImage picture(const QString& scenario) {
        const QString png = m_dir.filePath(scenario + QStringLiteral(".png"));
        const Run result = run(
            {scenario, QStringLiteral(STALLSCOPE_SOURCE_DIR "/resources/sample.stallscope"), png});
        if (result.exitCode != 0)
            qWarning("%s: exit %d: %s", qPrintable(scenario), result.exitCode,
                     qPrintable(result.err));
        return QImage(png);
    }

    static int distinctColours(const QImage& image) {
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 4)
            for (int x = 0; x < image.width(); x += 4)
                colours.insert(image.pixel(x, y));
        return int(colours.size());
    }

    static double meanLightness(const QImage& image) {
        double sum = 0;
        int count = 0;
        for (int y = 0; y < image.height(); y += 8)
            for (int x = 0; x < image.width(); x += 8, ++count)
                sum += qGray(image.pixel(x, y));
        return sum / count;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // Every scenario writes a picture the size of the README's, showing something.
    void everyScenarioMakesItsReadmePicture() {
        QProcess process;
        process.start(QStringLiteral(STALLSCOPE_SCREENSHOTS), {QStringLiteral("--list")});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 0);
        const QStringList names = QString::fromUtf8(process.readAllStandardOutput())
                                      .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(names.size(), 6);
        for (const QString& name : names) {
            const QImage readme(QStringLiteral(STALLSCOPE_SOURCE_DIR "/docs/images/") + name +
                                QStringLiteral(".png"));
            QVERIFY2(!readme.isNull(), qPrintable(name));
            const QImage made = picture(name);
            QCOMPARE(made.size(), readme.size());
            QVERIFY2(distinctColours(made) > 50,
                     qPrintable(name + QStringLiteral(": %1 colours").arg(distinctColours(made))));
        }
    }

    void darkPaletteIsDarker() {
        const double light = meanLightness(picture(QStringLiteral("insights-overview")));
        const double dark = meanLightness(picture(QStringLiteral("insights-dark-statistics")));
        QVERIFY2(dark + 60 < light, qPrintable(QStringLiteral("%1 vs %2").arg(dark).arg(light)));
    }

    void badUsageExits2() {
        QCOMPARE(run({}).exitCode, 2);
        const Run unknown = run({QStringLiteral("no-such-scenario"), QStringLiteral("x"),
                                 m_dir.filePath(QStringLiteral("x.png"))});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains(QStringLiteral("stallscope: usage:")),
                 qPrintable(unknown.err));
    }

    // The comparison window (two runs: not a README picture, not listed): the sample against
    // itself, every site the same; without AFTER it is bad usage.
    void compareScenarioGrabsTheComparisonWindow() {
        const QString sample = QStringLiteral(STALLSCOPE_SOURCE_DIR "/resources/sample.stallscope");
        const QString png = m_dir.filePath(QStringLiteral("compare.png"));
        const Run result = run({QStringLiteral("compare"), sample, sample, png});
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        const QImage made(png);
        QCOMPARE(made.size(), QSize(1800, 1100));
        QVERIFY(distinctColours(made) > 50);
        QCOMPARE(run({QStringLiteral("compare"), sample, png}).exitCode, 2);
    }

    void missingSessionExits1() {
        const QString png = m_dir.filePath(QStringLiteral("missing.png"));
        const Run result = run({QStringLiteral("timeline-overview"),
                                m_dir.filePath(QStringLiteral("missing.stallscope")), png});
        QCOMPARE(result.exitCode, 1);
        QVERIFY(!QFile::exists(png));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(ScreenshotsTest)
#include "tst_screenshots.moc"
