// cli_choices.hpp — an enum option of the command line from its domain's name table: --help lists
// the choices and their help lines, and a value that is none of them is a one-line parse error
// naming them. Used by cli.cpp and operation_options.cpp.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "base/name_table.hpp"

namespace gpublur::cli {

// "a: what a does; b: what b does" for an option's description.
template <typename Enum, std::size_t N>
std::string choices_help(const NameTable<Enum, N>& table) {
  std::string s;
  for (const auto& entry : table.entries) {
    s += (s.empty() ? "" : "; ") + std::string(entry.name) + ": " + std::string(entry.help);
  }
  return s;
}

// Parses an enum option by its name table: the value becomes the enum's number, which CLI11 then
// converts; anything else is a one-line parse error listing the choices.
template <typename Enum, std::size_t N>
CLI::Validator choice_of(const NameTable<Enum, N>& table) {
  return CLI::Validator(
      [&table](std::string& value) -> std::string {
        const std::optional<Enum> parsed = table.parse(value);
        if (!parsed) return "unknown value '" + value + "'; choose one of " + table.choices(", ");
        value = std::to_string(static_cast<int>(*parsed));
        return {};
      },
      "");
}

template <typename Enum, std::size_t N>
CLI::Option* add_choice(CLI::App& app, const std::string& flag, Enum& value,
                        const NameTable<Enum, N>& table, const std::string& description) {
  return app.add_option(flag, value, description)
      ->transform(choice_of(table))
      ->type_name(table.choices("|"))
      ->default_str(std::string(table.name(value)));
}

}  // namespace gpublur::cli
