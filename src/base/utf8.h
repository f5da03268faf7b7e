// UTF-8 hygiene for names read from untrusted inputs: every string a reader
// hands the model is valid UTF-8, so that every output (JSON above all) is.
// Invalid bytes become '?', one for one, so byte offsets and lengths stay.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mlprof {

// Replaces every byte that is not part of a valid UTF-8 sequence (overlong
// forms, surrogates and values past U+10FFFF included) with '?'. Returns how
// many bytes were replaced and, when any, the first offset in *first.
uint64_t RepairUtf8(char* data, size_t n, uint64_t* first);

// True when `s` is valid UTF-8 (ASCII fast path).
bool IsValidUtf8(std::string_view s);

// `s` itself when valid, else a repaired copy.
std::string ValidUtf8(std::string_view s);

}  // namespace mlprof
