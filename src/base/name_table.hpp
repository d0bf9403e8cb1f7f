// name_table.hpp — an enum's names, written once per domain (border.hpp, arch.hpp, ...): the
// command line parses with it, --help lists its choices and help lines from it, and reports print
// its names. Pure; constexpr where it can be.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpublur {

template <typename Enum, std::size_t N>
struct NameTable {
  struct Entry {
    Enum value;
    std::string_view name;
    std::string_view help = {};  // one line for --help (may be empty)
  };
  std::array<Entry, N> entries;

  /// The name of `value`; "?" for a value outside the table (a bug).
  constexpr std::string_view name(Enum value) const {
    for (const Entry& e : entries) {
      if (e.value == value) return e.name;
    }
    return "?";
  }

  constexpr std::optional<Enum> parse(std::string_view text) const {
    for (const Entry& e : entries) {
      if (e.name == text) return e.value;
    }
    return std::nullopt;
  }

  /// "a|b|c", or with another separator ("a, b, c").
  std::string choices(std::string_view separator = "|") const {
    std::string s;
    for (const Entry& e : entries) {
      if (!s.empty()) s += separator;
      s += e.name;
    }
    return s;
  }

  /// name -> value, as CLI11's transformers take it.
  std::map<std::string, Enum> map() const {
    std::map<std::string, Enum> m;
    for (const Entry& e : entries) m.emplace(std::string(e.name), e.value);
    return m;
  }
};

}  // namespace gpublur
