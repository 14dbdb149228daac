#include "format/btree_scanner.h"

#include "format/sqlite_header.h"

#include <algorithm>
#include <cstring>

namespace stallscope::format {

namespace {

// SQLite's own bound on a b-tree's depth (BTCURSOR_MAX_DEPTH): a deeper tree is a corrupt one.
constexpr size_t kMaxDepth = 20;
// The page that holds SQLite's lock bytes (at offset 2^30) is never part of a b-tree.
constexpr uint64_t kLockByteOffset = 0x40000000;

constexpr uint8_t kInteriorTablePage = 0x05;
constexpr uint8_t kLeafTablePage = 0x0d;

// An SQLite varint at p (1 to 9 bytes, big-endian, 7 bits a byte but all 8 of a ninth): the bytes
// it takes, or 0 when it runs past `end`.
inline int readVarint(const uint8_t* p, const uint8_t* end, uint64_t* value) {
    if (p < end && !(*p & 0x80)) { // most of a session's varints: one byte
        *value = *p;
        return 1;
    }
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) {
        if (p + i >= end)
            return 0;
        v = (v << 7) | (p[i] & 0x7f);
        if (!(p[i] & 0x80)) {
            *value = v;
            return i + 1;
        }
    }
    if (p + 8 >= end)
        return 0;
    *value = (v << 8) | p[8];
    return 9;
}

// A big-endian two's-complement integer of `bytes` bytes (1, 2, 3, 4, 6 or 8).
int64_t signedBigEndian(const uint8_t* p, int bytes) {
    uint64_t v = (p[0] & 0x80) ? ~uint64_t(0) : 0;
    for (int i = 0; i < bytes; ++i)
        v = (v << 8) | p[i];
    return static_cast<int64_t>(v);
}

bool decline(std::string* whyNot, std::string reason) {
    if (whyNot)
        *whyNot = std::move(reason);
    return false;
}

// One value of a record from its serial type (the file format's "record format"): its storage
// class, its integer, the bytes of its body. False for the reserved types 10 and 11.
bool decodeSerialType(uint64_t serialType, const uint8_t* body, const uint8_t* bodyEnd,
                      Statement::TypedInteger* value, uint64_t* bytes) {
    using Type = Statement::ValueType;
    static constexpr int kIntegerBytes[] = {0, 1, 2, 3, 4, 6, 8};
    if (serialType >= 1 && serialType <= 6) {
        *bytes = kIntegerBytes[serialType];
        if (uint64_t(bodyEnd - body) < *bytes)
            return false;
        *value = {Type::Integer, signedBigEndian(body, int(*bytes))};
        return true;
    }
    switch (serialType) {
    case 0:
        *bytes = 0;
        *value = {Type::Null, 0};
        return true;
    case 7:
        *bytes = 8;
        *value = {Type::Real, 0};
        return true;
    case 8:
    case 9:
        *bytes = 0;
        *value = {Type::Integer, int64_t(serialType - 8)};
        return true;
    case 10:
    case 11:
        return false;
    default:
        *bytes = (serialType - 12) / 2;
        *value = {serialType % 2 == 0 ? Type::Blob : Type::Text, 0};
        return true;
    }
}

} // namespace

bool BtreeScanner::layoutOf(const Database& db, std::string_view table,
                            const std::vector<std::string>& columns, TableLayout* layout,
                            std::string* whyNot) {
    Statement root =
        db.prepare("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?");
    root.bind(1, table);
    if (!root.step() || root.integer(0) < 2 || root.integer(0) > 0xffffffffLL)
        return decline(whyNot, "no root page for table '" + std::string(table) + "'");
    layout->rootPage = static_cast<uint32_t>(root.integer(0));

    // Records hold the table's columns in declaration order, a hidden or generated one aside.
    Statement info = db.prepare("SELECT cid, name, type, pk, hidden FROM pragma_table_xinfo(?)");
    info.bind(1, table);
    std::vector<std::string> names;
    std::string rowIdAlias;
    int primaryKeys = 0;
    while (info.step()) {
        if (info.integer(0) != int64_t(names.size()) || info.integer(4) != 0)
            return decline(whyNot, "table '" + std::string(table) + "' has hidden columns");
        names.push_back(info.text(1));
        if (info.integer(3) != 0) {
            ++primaryKeys;
            if (info.text(2) == "INTEGER")
                rowIdAlias = names.back();
        }
    }
    if (info.failed() || names.empty())
        return decline(whyNot, "cannot read the columns of table '" + std::string(table) + "'");
    if (primaryKeys != 1)
        rowIdAlias.clear(); // a composite key: no column is the row id
    layout->recordColumns.clear();
    for (const std::string& column : columns) {
        if (column == rowIdAlias) {
            layout->recordColumns.push_back(TableLayout::kRowId);
            continue;
        }
        const auto found = std::find(names.begin(), names.end(), column);
        if (found == names.end())
            return decline(whyNot,
                           "table '" + std::string(table) + "' has no column '" + column + "'");
        layout->recordColumns.push_back(int(found - names.begin()));
    }
    return true;
}

bool BtreeScanner::open(const Database& db, std::string* whyNot) {
    m_db = nullptr;
    uint8_t bytes[SqliteHeader::kBytes];
    const int64_t fileSize = db.mainFileSize();
    if (fileSize < int64_t(sizeof bytes) || !db.readMainFile(0, bytes, sizeof bytes))
        return decline(whyNot, "not an SQLite file");
    const SqliteHeader header = SqliteHeader::decode(bytes);
    if (!header.magic)
        return decline(whyNot, "not an SQLite file");
    if (!header.pageSizeValid())
        return decline(whyNot, "page size " + std::to_string(header.pageSize));
    if (!header.rollbackJournal)
        return decline(whyNot, "not in rollback-journal mode");
    m_pageSize = header.pageSize;
    m_usableSize = m_pageSize - header.reservedBytes;
    if (m_usableSize < 480)
        return decline(whyNot, "usable page size " + std::to_string(m_usableSize));
    uint64_t pages = uint64_t(fileSize) / m_pageSize;
    if (header.pageCountValid && header.pageCount != 0)
        pages = std::min<uint64_t>(pages, header.pageCount);
    m_pageCount = static_cast<uint32_t>(std::min<uint64_t>(pages, 0xffffffffu));
    m_db = &db;
    return true;
}

bool BtreeScanner::readPage(uint32_t page, std::vector<uint8_t>* into, std::string* whyNot) const {
    if (page < 1 || page > m_pageCount)
        return decline(whyNot, "page " + std::to_string(page) + " past the file's " +
                                   std::to_string(m_pageCount));
    const uint64_t offset = uint64_t(page - 1) * m_pageSize;
    if (offset <= kLockByteOffset && kLockByteOffset < offset + m_pageSize)
        return decline(whyNot, "the lock-byte page in a b-tree");
    into->resize(m_pageSize);
    if (!m_db->readMainFile(int64_t(offset), into->data(), int(m_pageSize)))
        return decline(whyNot, "cannot read page " + std::to_string(page));
    return true;
}

bool BtreeScanner::scan(const TableLayout& layout,
                        const std::function<void(const PageRows&)>& onPage, std::string* whyNot) {
    if (!m_db)
        return decline(whyNot, "not open");
    // Where each record value goes: slotOf[record index] = the layout column, or -1.
    int lastRecordColumn = -1;
    for (const int column : layout.recordColumns)
        lastRecordColumn = std::max(lastRecordColumn, column);
    std::vector<int> slotOf(size_t(lastRecordColumn + 1), -1);
    for (size_t k = 0; k < layout.recordColumns.size(); ++k)
        if (layout.recordColumns[k] >= 0)
            slotOf[size_t(layout.recordColumns[k])] = int(k);
    const size_t columns = layout.recordColumns.size();
    // A cell whose payload is larger than this spills onto overflow pages.
    const uint64_t maxLocalPayload = m_usableSize - 35;

    struct Level {
        uint32_t page = 0;
        std::vector<uint8_t> bytes;
        uint32_t nextCell = 0;
    };
    // The pages from the root to the one being read; their buffers are reused.
    std::vector<Level> path(kMaxDepth);
    size_t depth = 0;
    std::vector<bool> visited(size_t(m_pageCount) + 1, false);
    PageRows rows;
    rows.columns = columns;
    bool anyRow = false;
    int64_t lastRowId = 0;

    auto enter = [&](uint32_t page) {
        if (depth == kMaxDepth)
            return decline(whyNot, "a b-tree deeper than " + std::to_string(kMaxDepth));
        if (page >= 1 && page <= m_pageCount && visited[page])
            return decline(whyNot, "page " + std::to_string(page) + " reached twice");
        if (page == 1) // the schema's root, never a table's page
            return decline(whyNot, "page 1 in a table's b-tree");
        Level& level = path[depth];
        if (!readPage(page, &level.bytes, whyNot))
            return false;
        level.page = page;
        level.nextCell = 0;
        visited[page] = true;
        ++depth;
        return true;
    };

    auto readLeaf = [&](const uint8_t* page, uint32_t headerAt, uint32_t cells) {
        const uint8_t* end = page + m_usableSize;
        const uint32_t pointersEnd = headerAt + 8 + 2 * cells;
        rows.count = 0;
        if (rows.rowIds.size() < cells) {
            rows.rowIds.resize(cells);
            rows.values.resize(size_t(cells) * columns);
        }
        for (uint32_t i = 0; i < cells; ++i) {
            const uint32_t at = bigEndian16(page + headerAt + 8 + 2 * i);
            if (at < pointersEnd || at >= m_usableSize)
                return decline(whyNot, "a cell outside its page");
            const uint8_t* p = page + at;
            uint64_t payloadSize = 0, rowId = 0;
            int n = readVarint(p, end, &payloadSize);
            if (n == 0)
                return decline(whyNot, "a cell past its page");
            p += n;
            n = readVarint(p, end, &rowId);
            if (n == 0)
                return decline(whyNot, "a cell past its page");
            p += n;
            if (payloadSize > maxLocalPayload)
                return decline(whyNot, "a record on overflow pages");
            if (uint64_t(end - p) < payloadSize)
                return decline(whyNot, "a record past its page");
            if (anyRow && int64_t(rowId) <= lastRowId)
                return decline(whyNot, "row ids out of order");
            anyRow = true;
            lastRowId = int64_t(rowId);

            // The record: its header's size, a serial type per column, then the values.
            const uint8_t* payloadEnd = p + payloadSize;
            uint64_t headerSize = 0;
            n = readVarint(p, payloadEnd, &headerSize);
            if (n == 0 || headerSize < uint64_t(n) || headerSize > payloadSize)
                return decline(whyNot, "a record header past its record");
            const uint8_t* type = p + n;
            const uint8_t* typesEnd = p + headerSize;
            const uint8_t* body = typesEnd;
            Statement::TypedInteger* slots = rows.values.data() + rows.count * columns;
            for (size_t k = 0; k < columns; ++k)
                if (layout.recordColumns[k] == TableLayout::kRowId)
                    slots[k] = {Statement::ValueType::Integer, int64_t(rowId)};
            for (int index = 0; index <= lastRecordColumn; ++index) {
                uint64_t serialType = 0;
                n = type < typesEnd ? readVarint(type, typesEnd, &serialType) : 0;
                if (n == 0)
                    return decline(whyNot, "a record without every column");
                type += n;
                Statement::TypedInteger value{};
                uint64_t bytes = 0;
                if (!decodeSerialType(serialType, body, payloadEnd, &value, &bytes) ||
                    uint64_t(payloadEnd - body) < bytes)
                    return decline(whyNot, "a record value past its record");
                body += bytes;
                if (slotOf[size_t(index)] >= 0)
                    slots[slotOf[size_t(index)]] = value;
            }
            // As SQLite's OP_Column: a header read to its end must describe the whole record.
            if (type == typesEnd && body != payloadEnd)
                return decline(whyNot, "a record whose values do not fill it");
            rows.rowIds[rows.count++] = int64_t(rowId);
        }
        if (rows.count > 0)
            onPage(rows);
        return true;
    };

    if (!enter(layout.rootPage))
        return false;
    while (depth > 0) {
        Level& level = path[depth - 1];
        const uint8_t* page = level.bytes.data();
        const uint32_t headerAt = level.page == 1 ? 100 : 0;
        const uint8_t kind = page[headerAt];
        const uint32_t cells = bigEndian16(page + headerAt + 3);
        const uint32_t headerSize = kind == kInteriorTablePage ? 12 : 8;
        if (kind != kInteriorTablePage && kind != kLeafTablePage)
            return decline(whyNot,
                           "page " + std::to_string(level.page) + " is not a table b-tree page");
        // SQLite's bound on a page's cells (MX_CELL), then room for their pointers.
        if (cells > (m_pageSize - 8) / 6 ||
            headerAt + headerSize + 2 * uint64_t(cells) > m_usableSize)
            return decline(whyNot, "more cells than page " + std::to_string(level.page) + " holds");
        // As SQLite's cursor: only an empty table's root leaf may have no cells.
        if (cells == 0 && (kind == kInteriorTablePage || depth > 1))
            return decline(whyNot, "page " + std::to_string(level.page) + " has no cells");
        if (kind == kLeafTablePage) {
            if (!readLeaf(page, headerAt, cells))
                return false;
            --depth;
            continue;
        }
        // An interior page: each cell's left child in turn, then the right-most child.
        if (level.nextCell > cells) {
            --depth;
            continue;
        }
        uint32_t child = 0;
        if (level.nextCell == cells) {
            child = bigEndian32(page + headerAt + 8);
        } else {
            const uint32_t at = bigEndian16(page + headerAt + 12 + 2 * level.nextCell);
            if (at < headerAt + 12 + 2 * cells || at + 4 > m_usableSize)
                return decline(whyNot, "a cell outside its page");
            child = bigEndian32(page + at);
        }
        ++level.nextCell;
        if (!enter(child))
            return false;
    }
    return true;
}

bool scanTablePages(Database& db, BtreeScanner& scanner, std::string_view table,
                    const std::vector<std::string>& columns,
                    const std::function<void(const BtreeScanner::PageRows&)>& onPage,
                    std::string* whyNot) {
    const ReadTransaction transaction(db);
    TableLayout layout;
    if (!transaction.open()) {
        if (whyNot)
            *whyNot = "no read transaction: " + db.lastMessage();
        return false;
    }
    return BtreeScanner::layoutOf(db, table, columns, &layout, whyNot) &&
           scanner.open(db, whyNot) && scanner.scan(layout, onPage, whyNot);
}

} // namespace stallscope::format
