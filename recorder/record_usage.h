// stallscope-record's --help, and the texts its option checks share with it.
#pragma once

#include <cstdint>
#include <string>

namespace stallscope::recorder {

std::string recordUsage();
// "64K", "256M": a size as --buffer-size takes it.
std::string sizeText(uint64_t bytes);
// "1..96"
std::string range(long long min, long long max);

} // namespace stallscope::recorder
