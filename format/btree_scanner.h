// Reads a table's rows straight from the pages of its SQLite file (the file format:
// https://www.sqlite.org/fileformat2.html), several times faster than stepping a statement: the
// loader's event tables are 100 M rows of small integers, and SQLite's virtual machine spends most
// of a load deciding, row after row and column after column, what the scanner knows once per table.
//
// It is an accelerator, never the authority. It reads only what it understands exactly as SQLite
// does — a database in rollback-journal mode, table b-trees whose records hold every column, no
// overflow pages, cells inside their pages, row ids increasing, each page reached once — and
// declines anything else with a reason, so that the caller reads the same table through SQLite,
// whose answer (rows or an error) is the one a user sees. The caller holds a read transaction on
// the same connection while it scans, so that no writer changes the pages under it.
#pragma once

#include "format/sqlite_database.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::format {

// Where a table's rows are in its file, and which value of each record is which column.
struct TableLayout {
    uint32_t rootPage = 0;
    // Per column asked for: its index in the table's records, or kRowId for the row id (the
    // table's INTEGER PRIMARY KEY, which a record stores as NULL).
    std::vector<int> recordColumns;
    static constexpr int kRowId = -1;
};

class BtreeScanner {
public:
    BtreeScanner() = default;
    BtreeScanner(const BtreeScanner&) = delete;
    BtreeScanner& operator=(const BtreeScanner&) = delete;

    // Where `table`'s `columns` are, from `db`'s schema (the file the scanner opens). False, with
    // the reason, when a column is missing or hidden, or the row id is not the first column asked
    // for's INTEGER PRIMARY KEY.
    static bool layoutOf(const Database& db, std::string_view table,
                         const std::vector<std::string>& columns, TableLayout* layout,
                         std::string* whyNot);

    // Reads the pages of `db`'s file from now on, through its connection (which must outlive the
    // scanner and hold a read transaction while it scans). False, with the reason, when the
    // scanner does not read them: a write-ahead-log database (its newest pages may be in the
    // log), a header it does not know.
    bool open(const Database& db, std::string* whyNot);

    // The rows of one leaf page: row i < size()'s id rowIds[i] and its values
    // values[i * columns + k], in the order of the layout's columns (the vectors may be longer:
    // they are reused from page to page).
    struct PageRows {
        std::vector<int64_t> rowIds;
        std::vector<Statement::TypedInteger> values;
        size_t columns = 0;
        size_t count = 0;
        size_t size() const { return count; }
    };

    // Reads the table in row-id order, one leaf page at a time, calling onPage(rows) for each.
    // False, with the reason, at the first thing it does not read the way SQLite would (see the
    // top of this file); what onPage was given before then is the caller's to discard. Exceptions
    // from onPage pass through.
    bool scan(const TableLayout& layout, const std::function<void(const PageRows&)>& onPage,
              std::string* whyNot);

private:
    bool readPage(uint32_t page, std::vector<uint8_t>* into, std::string* whyNot) const;

    const Database* m_db = nullptr;
    uint32_t m_pageSize = 0;
    uint32_t m_usableSize = 0;
    uint32_t m_pageCount = 0;
};

// A read transaction on a connection for as long as it lives: the pages a scanner reads through
// it cannot change meanwhile (the shared lock is taken by the first read after it opens).
class ReadTransaction {
public:
    explicit ReadTransaction(Database& db) : m_db(db), m_open(db.exec("BEGIN")) {}
    ~ReadTransaction() {
        if (m_open)
            m_db.exec("COMMIT");
    }
    ReadTransaction(const ReadTransaction&) = delete;
    ReadTransaction& operator=(const ReadTransaction&) = delete;
    bool open() const { return m_open; }

private:
    Database& m_db;
    bool m_open;
};

// `table`'s `columns` read from its pages by `scanner`, under a read transaction of its own on
// `db`. False, with the reason, when the scanner does not read this table or declines it part-way:
// what onPage was given is then the caller's to discard, and SQLite's reading is the answer.
bool scanTablePages(Database& db, BtreeScanner& scanner, std::string_view table,
                    const std::vector<std::string>& columns,
                    const std::function<void(const BtreeScanner::PageRows&)>& onPage,
                    std::string* whyNot);

} // namespace stallscope::format
