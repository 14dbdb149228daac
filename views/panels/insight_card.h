// InsightCard: one finding of the insight engine as a card — a severity stripe, the rules whose
// evidence it carries (main first), the title, the saving with what it assumes, the evidence line
// and a source chip (`train.py:90 · train_step`). Clicking the card body asks for
// its events on the timeline (activated); clicking the chip asks for the source (sourceRequested).
// The selected card also shows the recommendation. The card holds a copy of the insight so it can
// outlive a report being replaced.
#pragma once

#include "model/analysis/insight.h"

#include <QFrame>

class QLabel;
class QToolButton;

namespace stallscope::views {

class InsightCard : public QFrame {
    Q_OBJECT
public:
    // defLineSites: Python sites carry only the function's def line (imported Kineto traces).
    InsightCard(const model::Insight& insight, bool defLineSites, QWidget* parent = nullptr);

    const model::Insight& insight() const { return m_insight; }
    QString title() const;
    QString evidence() const;
    // "Saves ≈ 367 ms (15.0 %) if the host did not wait here"; empty when nothing is saved.
    QString savingsText() const;
    // The rule ids, main first: "pageable-copy · in-loop-sync · sync-attribution".
    QString rulesText() const;
    QString chipText() const;
    // The recommendation as shown (empty unless the card is selected).
    QString recommendation() const;
    QToolButton* chip() const { return m_chip; }
    void setSelected(bool selected);
    bool isSelected() const { return m_selected; }

    static QString savingsText(const model::Insight& insight);
    // `train.py:90 · train_step`; `train.py · train()` for def-line Python sites; the site's
    // label when it has no location (GPU rules, unknown sites).
    static QString chipText(const model::SourceSite& site, bool defLineOnly);
    static QColor severityColor(model::Severity severity);

signals:
    void activated();
    void sourceRequested(const stallscope::model::SourceSite& site);

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    model::Insight m_insight;
    QLabel* m_title = nullptr;
    QLabel* m_rules = nullptr;
    QLabel* m_savings = nullptr;
    QLabel* m_evidence = nullptr;
    QLabel* m_recommendation = nullptr;
    QToolButton* m_chip = nullptr;
    bool m_selected = false;
};

} // namespace stallscope::views
