#include "views/panels/stack_view.h"

#include "views/panels/panel_widgets.h"
#include "views/panels/stack_model.h"

#include "model/session/python_frame_name.h"

#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace stallscope::views {

StackView::StackView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("stackView"));
    QVBoxLayout* layout = flushColumn(this, 0);
    m_caption = new QLabel(this);
    m_caption->setContentsMargins(6, 3, 6, 3);
    m_caption->setWordWrap(true);
    layout->addWidget(m_caption);

    m_model = new StackModel(this);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    setUpListTable(m_table);
    m_table->setShowGrid(false);
    // C++ signatures and generated file names run long: keep the columns at fixed
    // (user-resizable) widths so the function column gets the rest.
    QHeaderView* header = m_table->horizontalHeader();
    header->setSectionResizeMode(StackModel::IndexColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(StackModel::FunctionColumn, QHeaderView::Stretch);
    header->setSectionResizeMode(StackModel::LocationColumn, QHeaderView::Interactive);
    header->setSectionResizeMode(StackModel::ModuleColumn, QHeaderView::Interactive);
    const int charWidth = m_table->fontMetrics().horizontalAdvance(QLatin1Char('x'));
    header->resizeSection(StackModel::LocationColumn, 22 * charWidth);
    header->resizeSection(StackModel::ModuleColumn, 14 * charWidth);
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex& index) {
        if (m_model->isFoldRow(index.row())) {
            m_model->unfold();
            return;
        }
        if (!m_model->hasSource(index.row()))
            return;
        const model::FrameInfo* frame = m_model->frame(index.row());
        emit sourceRequested(QString::fromStdString(frame->file), int(frame->line),
                             model::isDefLineFrame(*frame));
    });
    layout->addWidget(m_table, 1);
    clear();
}

void StackView::setStack(const QString& caption, std::vector<model::FrameInfo> frames,
                         const std::unordered_map<int64_t, model::ModuleInfo>* modules) {
    const bool empty = frames.empty();
    m_model->setStack(std::move(frames), modules);
    m_caption->setText(empty ? caption + QStringLiteral("<br>") + tr("(no stack recorded)")
                             : caption);
    // After the table has laid out the new rows: scrolled at once, its scroll bar still has the
    // old (empty) range and the scroll is lost.
    QTimer::singleShot(0, this, &StackView::scrollToUserFrame);
}

void StackView::scrollToUserFrame() {
    for (int row = 0; row < m_model->rowCount(); ++row)
        if (m_model->index(row, 0).data(StackModel::IsUserRole).toBool()) {
            const QModelIndex user = m_model->index(row, 0);
            m_table->scrollTo(user, QAbstractItemView::PositionAtCenter);
            // In a dock just tabbed in, scrollTo can leave the table where it was (seen with
            // the bundled sample): then scroll by rows, the table's unit (ScrollPerItem).
            if (!m_table->viewport()->rect().intersects(m_table->visualRect(user))) {
                const int shown =
                    m_table->viewport()->height() / std::max(1, m_table->rowHeight(row));
                m_table->verticalScrollBar()->setValue(row - shown / 2);
            }
            break;
        }
}

void StackView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    // A hidden table did not scroll (its rows had no size); once laid out, it can.
    QTimer::singleShot(0, this, &StackView::scrollToUserFrame);
}

void StackView::clear(const QString& caption) {
    m_model->clear();
    m_caption->setText(caption.isEmpty() ? tr("Select a sync to see where it was called from.")
                                         : caption);
}

QString StackView::caption() const {
    return m_caption->text();
}

} // namespace stallscope::views
