#include "model/interop/kineto_json_reader.h"

#include <rapidjson/reader.h>

namespace stallscope::model::json_detail {

bool numberTooBig(std::string_view number) {
    // RapidJSON's own verdict, on the number alone: what it refuses depends on its digits only.
    const std::string text(number);
    rapidjson::StringStream stream(text.c_str());
    rapidjson::BaseReaderHandler<> ignore;
    rapidjson::Reader reader;
    return reader.Parse<rapidjson::kParseNumbersAsStringsFlag>(stream, ignore).IsError();
}

void appendUtf8(std::string& out, unsigned codepoint) {
    auto byte = [&](unsigned value) { out += static_cast<char>(value); };
    if (codepoint < 0x80) {
        byte(codepoint);
    } else if (codepoint < 0x800) {
        byte(0xC0 | (codepoint >> 6));
        byte(0x80 | (codepoint & 0x3F));
    } else if (codepoint < 0x10000) {
        byte(0xE0 | (codepoint >> 12));
        byte(0x80 | ((codepoint >> 6) & 0x3F));
        byte(0x80 | (codepoint & 0x3F));
    } else {
        byte(0xF0 | (codepoint >> 18));
        byte(0x80 | ((codepoint >> 12) & 0x3F));
        byte(0x80 | ((codepoint >> 6) & 0x3F));
        byte(0x80 | (codepoint & 0x3F));
    }
}

int hex4(const char* p) {
    int value = 0;
    for (int i = 0; i < 4; ++i) {
        const char c = p[i];
        int digit = 0;
        if (c >= '0' && c <= '9')
            digit = c - '0';
        else if (c >= 'a' && c <= 'f')
            digit = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            digit = c - 'A' + 10;
        else
            return -1;
        value = value * 16 + digit;
    }
    return value;
}

char escapedByte(char c) {
    switch (c) {
    case '"':
        return '"';
    case '\\':
        return '\\';
    case '/':
        return '/';
    case 'b':
        return '\b';
    case 'f':
        return '\f';
    case 'n':
        return '\n';
    case 'r':
        return '\r';
    case 't':
        return '\t';
    default:
        return 0;
    }
}

} // namespace stallscope::model::json_detail
