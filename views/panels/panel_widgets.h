// Building blocks the side panels share, so they look alike: the flush column a panel stacks its
// parts in, and the read-only list tables (stack frames, statistics).
#pragma once

class QDockWidget;
class QTableView;
class QVBoxLayout;
class QWidget;

namespace stallscope::views {

// A column layout on `panel` that reaches its edges, `spacing` pixels between the parts.
QVBoxLayout* flushColumn(QWidget* panel, int spacing);

// Makes `table` a read-only list: whole rows, one at a time, compact rows without numbers, and long
// text elided in the middle (file paths and C++ signatures keep both ends).
void setUpListTable(QTableView* table);

// Brings a panel forward: shown if it was closed, its tab raised if it shares a dock area, and its
// content focused. What the View menu's panel shortcuts do (a shortcut that names a panel never
// hides it).
void bringForward(QDockWidget* dock);

} // namespace stallscope::views
