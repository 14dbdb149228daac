// InsightCardsWidget: the insight dock's content. A summary card (wall time, GPU busy %, host
// blocked %) on top, then one InsightCard per insight in the report's order (largest estimated
// savings first), or a card saying there is nothing to fix. Re-emits the cards' requests.
#pragma once

#include "model/analysis/insight.h"

#include <QScrollArea>

#include <memory>
#include <vector>

class QLabel;
class QVBoxLayout;

namespace stallscope::views {

class InsightCard;

class InsightCardsWidget : public QScrollArea {
    Q_OBJECT
public:
    explicit InsightCardsWidget(QWidget* parent = nullptr);

    // Shown while the analysis runs ("Analyzing…") or when it failed; clears the cards.
    void setMessage(const QString& message);
    // defLineSites: see InsightCard.
    void setReport(std::shared_ptr<const model::InsightReport> report, bool defLineSites);
    void clear();

    const std::shared_ptr<const model::InsightReport>& report() const { return m_report; }
    const std::vector<InsightCard*>& cards() const { return m_cards; }
    InsightCard* card(int index) const;
    QString summaryText() const;
    QString messageText() const;
    int selectedIndex() const { return m_selected; }

    // Marks card `index` (-1: none) as the selected one without emitting anything: the selection
    // was made elsewhere (a sync or a source line of this finding).
    void markSelected(int index);

public slots:
    // Marks the card and emits insightActivated, as a click does.
    void activate(int index);

signals:
    void insightActivated(int index, const stallscope::model::Insight& insight);
    void sourceRequested(const stallscope::model::SourceSite& site);

private:
    void removeCards();

    std::shared_ptr<const model::InsightReport> m_report;
    QWidget* m_content = nullptr;
    QVBoxLayout* m_layout = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_message = nullptr;
    std::vector<InsightCard*> m_cards;
    int m_selected = -1;
};

} // namespace stallscope::views
