// The report (views/report) on the recorded CUDA sample: each finding site once with its fix once
// and its guilty source line, the zoomed stalled step before and after the fix, a table of
// contents naming every section, A4 and Letter PDFs with page numbers, a self-contained HTML file
// that escapes what the session says (a hostile kernel name, command and source path), and kernel
// names shortened at the end of their template arguments.
#include "model/analysis/insight_engine.h"
#include "model/session/session.h"
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "tests/support/test_suite.h"
#include "views/report/report_content.h"
#include "views/report/report_names.h"
#include "views/report/report_writer.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <map>
#include <set>

using namespace stallscope;

namespace {

const QString kSample = QStringLiteral(STALLSCOPE_SOURCE_DIR "/resources/sample-cuda.stallscope");
// The Python sample; the CUDA one has seven sites, five of them with the same fix.
const QString kPythonSample = QStringLiteral(STALLSCOPE_SOURCE_DIR "/resources/sample.stallscope");

// STALLSCOPE_KEEP_REPORTS=1 keeps the reports written (their folder is printed) to look at.
void keep(QTemporaryDir& dir) {
    if (qEnvironmentVariableIsSet("STALLSCOPE_KEEP_REPORTS")) {
        dir.setAutoRemove(false);
        qInfo("reports kept in %s", qPrintable(dir.path()));
    }
}

struct Loaded {
    std::shared_ptr<const model::Session> session;
    std::shared_ptr<model::SessionDatabase> database;
    model::InsightReport report;
};

Loaded load(const QString& path, const model::AnalysisOptions& options = {}) {
    Loaded result;
    auto loaded = model::SessionLoader::load(path.toStdString());
    if (!loaded.ok())
        return result;
    result.session = std::move(loaded.session);
    result.database = std::make_shared<model::SessionDatabase>();
    std::string error;
    if (!result.database->open(path.toStdString(), &error))
        return {};
    result.report = model::InsightEngine::analyze(*result.session, *result.database, options);
    return result;
}

QString readAll(const QString& path) {
    QFile file(path);
    file.open(QIODevice::ReadOnly);
    return QString::fromUtf8(file.readAll());
}

bool sql(const QString& path, const char* statement) {
    sqlite3* db = nullptr;
    const bool ok = sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK &&
                    sqlite3_exec(db, statement, nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

} // namespace

class TstReport : public QObject {
    Q_OBJECT
private slots:
    void htmlHoldsEachFindingOnceWithItsSourceLine_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("sharedFixes");
        QTest::newRow("cuda") << kSample << true;
        QTest::newRow("python") << kPythonSample << false;
    }
    void htmlHoldsEachFindingOnceWithItsSourceLine() {
        QFETCH(QString, path);
        QFETCH(bool, sharedFixes);
        QTemporaryDir dir;
        keep(dir);
        // Every simulated site a finding: the CUDA sample's sites that share a fix save too
        // little to be cards by default (simulation.minSavingShare).
        model::AnalysisOptions options;
        options.thresholds.simulation.minSavingShare = 0;
        const Loaded run = load(path, options);
        QVERIFY(run.session);
        QVERIFY(!run.report.insights.empty());
        const QString out = dir.filePath(QStringLiteral("report.html"));
        QString error;
        QVERIFY2(views::ReportWriter::write(run.session, run.report, out, {}, &error),
                 qPrintable(error));
        const QString html = readAll(out);

        // One section per site: every site's "Where:" once, every distinct fix once.
        std::set<std::string> sites, fixes;
        for (const model::Insight& insight : run.report.insights) {
            sites.insert(insight.site.label());
            fixes.insert(model::fixText(insight));
        }
        if (sharedFixes) // sites sharing a fix: its paragraph once is tested
            QVERIFY(fixes.size() < run.report.insights.size());
        QCOMPARE(html.count(QStringLiteral("<div class=\"where\">")), int(sites.size()));
        for (const std::string& site : sites)
            QCOMPARE(html.count(QStringLiteral("Where: ") +
                                QString::fromStdString(site).toHtmlEscaped() +
                                QStringLiteral(" ·")),
                     1);
        for (const std::string& fix : fixes)
            QCOMPARE(html.count(QStringLiteral("<p class=\"fix\"><b>Fix:</b> ") +
                                QString::fromStdString(fix).toHtmlEscaped() +
                                QStringLiteral("</p>")),
                     1);

        // The guilty line of every located site, from the embedded source, marked.
        int excerpts = 0;
        for (const model::Insight& insight : run.report.insights) {
            if (!insight.site.hasLocation())
                continue;
            const auto source = run.database->source(insight.site.file);
            QVERIFY(source);
            const QStringList lines = QString::fromStdString(source->text).split(u'\n');
            const QString line = lines.at(int(insight.site.line) - 1);
            QVERIFY(!line.trimmed().isEmpty());
            // The cost column holds the syncs made on the line; a host-gap site (the line the
            // host ran while the GPU idled) has none.
            const QString cost = insight.rule == model::InsightRule::HostGap
                                     ? QString()
                                     : QStringLiteral("[^<]*×\\d+");
            const QRegularExpression guilty(
                QStringLiteral("<span class=\"line guilty\"><span class=\"cost\">%1</span>"
                               "<span class=\"no\">%2</span>%3</span>")
                    .arg(cost)
                    .arg(insight.site.line)
                    .arg(QRegularExpression::escape(line.toHtmlEscaped())));
            QVERIFY2(guilty.match(html).hasMatch(), qPrintable(line));
            ++excerpts;
        }
        QVERIFY(excerpts > 0);

        // The stalled step, recorded and replayed: two inline pictures.
        QVERIFY(html.contains(QStringLiteral("id=\"stalled-step\"")));
        QCOMPARE(html.count(QStringLiteral("src=\"data:image/png;base64,")), 2);
        // Self-contained: nothing fetched.
        QVERIFY(!html.contains(QStringLiteral("src=\"http")));
        QVERIFY(!html.contains(QStringLiteral("<link")));
        QVERIFY(!html.contains(QStringLiteral("<script")));
    }

    void tableOfContentsListsEverySection() {
        const Loaded run = load(kSample);
        QVERIFY(run.session);
        const views::ReportDocument doc =
            views::buildReportDocument(run.session, run.database, run.report, false);
        QVERIFY(doc.sections.size() >= 5);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("r.html"));
        QString error;
        QVERIFY(views::ReportWriter::write(run.session, run.report, out, {}, &error));
        const QString html = readAll(out);
        const QString toc = html.section(QStringLiteral("<nav class=\"toc\">"), 1)
                                .section(QStringLiteral("</nav>"), 0, 0);
        for (const views::ReportSection& section : doc.sections) {
            QVERIFY2(toc.contains(QStringLiteral("<a href=\"#%1\">%2</a>")
                                      .arg(section.anchor, section.title.toHtmlEscaped())),
                     qPrintable(section.title));
            QCOMPARE(html.count(QStringLiteral("id=\"%1\"").arg(section.anchor)), 1);
        }
        // The title page's facts.
        for (const char* label : {"Program", "Command", "Host", "GPUs", "Recorded", "Recorder"})
            QVERIFY2(html.contains(QStringLiteral("<th>%1</th>").arg(QLatin1String(label))), label);
        QVERIFY(html.contains(QStringLiteral("NVIDIA H200")));
    }

    void hostileNamesAreEscaped() {
        QTemporaryDir dir;
        keep(dir);
        const QString copy = dir.filePath(QStringLiteral("hostile.stallscope"));
        QVERIFY(QFile::copy(kSample, copy));
        QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
        QVERIFY(sql(copy, "UPDATE strings SET text = '<script>alert(1)</script><b>k' WHERE id = "
                          "(SELECT name_id FROM kernels LIMIT 1);"
                          "UPDATE meta SET value = '<script>cmd()</script> & run' WHERE key = "
                          "'command';"
                          "UPDATE frames SET file = '/tmp/<script>p</script>.cu' WHERE file = "
                          "(SELECT path FROM sources LIMIT 1);"
                          "UPDATE frame_inlines SET file = '/tmp/<script>p</script>.cu' WHERE "
                          "file = (SELECT path FROM sources LIMIT 1);"
                          "UPDATE sources SET path = '/tmp/<script>p</script>.cu', text = "
                          "replace(text, 'cudaDeviceSynchronize', '</pre><script>s()</script>');"));
        const Loaded run = load(copy);
        QVERIFY(run.session);
        const QString out = dir.filePath(QStringLiteral("hostile.html"));
        QString error;
        QVERIFY2(views::ReportWriter::write(run.session, run.report, out, {}, &error),
                 qPrintable(error));
        const QString html = readAll(out);
        QVERIFY(!html.contains(QStringLiteral("<script"), Qt::CaseInsensitive));
        QVERIFY(!html.contains(QStringLiteral("<b>k")));
        QVERIFY(html.contains(QStringLiteral("&lt;script&gt;alert(1)&lt;/script&gt;&lt;b&gt;k")));
        QVERIFY(html.contains(QStringLiteral("&lt;script&gt;cmd()&lt;/script&gt; &amp; run")));
        QVERIFY(html.contains(QStringLiteral("/tmp/&lt;script&gt;p&lt;/script&gt;.cu")));
    }

    void pdfHasContentsPageNumbersAndPageSizes() {
        const Loaded run = load(kSample);
        QVERIFY(run.session);
        QTemporaryDir dir;
        keep(dir);
        for (const char* size : {"a4", "letter"}) {
            views::ReportOptions options;
            QVERIFY(views::ReportWriter::parsePageSize(QLatin1String(size), &options.pageSize));
            const QString out = dir.filePath(QStringLiteral("r-%1.pdf").arg(QLatin1String(size)));
            QString error;
            QVERIFY2(views::ReportWriter::write(run.session, run.report, out, {}, &error, options),
                     qPrintable(error));
            QFile file(out);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray pdf = file.readAll();
            QVERIFY(pdf.startsWith("%PDF"));
            QVERIFY(pdf.contains(std::string(size) == "a4" ? "/MediaBox [0 0 595"
                                                           : "/MediaBox [0 0 612"));
            const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
            if (pdftotext.isEmpty())
                continue;
            QProcess process;
            process.start(pdftotext, {out, QStringLiteral("-")});
            QVERIFY(process.waitForFinished(60000));
            // Ligatures ("ﬁ") back to letters.
            const QString text = QString::fromUtf8(process.readAllStandardOutput())
                                     .normalized(QString::NormalizationForm_KC);
            QVERIFY(text.contains(QStringLiteral("Contents")));
            QVERIFY(text.contains(QStringLiteral("page 1 of ")));
            QVERIFY(text.contains(QStringLiteral("A stalled step, before and after the fix")));
            std::set<std::string> fixes;
            for (const model::Insight& insight : run.report.insights)
                fixes.insert(model::fixText(insight));
            std::map<std::string, int> starts; // wrapped lines: the start of each fix, once
            for (const std::string& fix : fixes)
                ++starts[fix.substr(0, 40)];
            for (const auto& [start, count] : starts)
                QVERIFY2(text.count(QString::fromStdString(start)) == count, start.c_str());
        }
        views::ReportOptions options;
        QVERIFY(!views::ReportWriter::parsePageSize(QStringLiteral("a5"), &options.pageSize));
    }

    void kernelNamesElideAtTheEndOfTemplateArguments() {
        const QString a = QStringLiteral(
            "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
            "at::native::AddFunctor<float>>(at::TensorIteratorBase&, "
            "at::native::AddFunctor<float> const&)::{lambda(int)#1}>(int, "
            "at::native::gpu_kernel_impl_nocast<at::native::AddFunctor<float>>)");
        QString b = a;
        b.replace(QStringLiteral("<128, 4,"), QStringLiteral("<512, 1,"));
        const QString shortA = views::elideTemplateName(a, 60);
        const QString shortB = views::elideTemplateName(b, 60);
        QVERIFY(shortA.size() <= 60);
        QVERIFY(shortA != shortB);
        QVERIFY2(shortA.startsWith(QStringLiteral("at::native::elementwise_kernel<128, 4, ")),
                 qPrintable(shortA));
        QVERIFY2(shortA.endsWith(QStringLiteral("…>(…)")), qPrintable(shortA));
        // Issue 42: the anonymous namespace is part of the name, so kernels stay apart.
        const QString anonymous = QStringLiteral(
            "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<"
            "float, 4, at::native::templates::cuda::uniform_and_transform<float, float, "
            "at::CUDAGeneratorImpl*>>(long, at::PhiloxCudaState)");
        const QString shortAnonymous = views::elideTemplateName(anonymous, 70);
        QVERIFY2(shortAnonymous.startsWith(
                     QStringLiteral("at::native::(anonymous namespace)::distribution_elementwise")),
                 qPrintable(shortAnonymous));
        QVERIFY(shortAnonymous.size() <= 70);
        QCOMPARE(views::elideTemplateName(QStringLiteral("spin(float*, int, int)"), 60),
                 QStringLiteral("spin(float*, int, int)"));
        QCOMPARE(views::elideTemplateName(QStringLiteral("a_long_c_kernel_name"), 8),
                 QStringLiteral("a_long_…"));
    }
};

STALLSCOPE_TEST_MAIN(TstReport)
#include "tst_report.moc"
