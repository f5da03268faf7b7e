#include "report/xlsx.h"

#include <fmt/format.h>
#include <xlsxwriter.h>

#include <algorithm>
#include <set>
#include <variant>

namespace mlprof {
namespace {

// Sheet names: at most 31 characters, none of []:*?/\, unique.
std::string SheetName(std::string_view id, std::set<std::string>* used) {
  std::string base;
  for (char c : id) base.push_back(std::string_view("[]:*?/\\").find(c) == std::string_view::npos ? c : '_');
  if (base.empty()) base = "table";
  base = base.substr(0, 28);
  std::string name = base;
  for (int n = 2; used->count(name); ++n) name = fmt::format("{}_{}", base, n);
  used->insert(name);
  return name;
}

}  // namespace

Status WriteXlsx(const Report& r, const std::vector<std::string>& cover, const std::string& path) {
  lxw_workbook* wb = workbook_new(path.c_str());
  if (!wb) return DataLoss(fmt::format("{}: cannot create the workbook", path));
  lxw_format* bold = workbook_add_format(wb);
  format_set_bold(bold);
  std::set<std::string> used{"inputs"};
  lxw_worksheet* front = workbook_add_worksheet(wb, "inputs");
  lxw_row_t row = 0;
  for (const std::string& line : cover) {
    worksheet_write_string(front, row, 0, line.c_str(), row == 0 ? bold : nullptr);
    ++row;
  }
  ++row;
  worksheet_write_string(front, row, 0, "sheet", bold);
  worksheet_write_string(front, row++, 1, "table", bold);
  std::vector<std::string> names;
  for (const Table& t : r.tables) {
    names.push_back(SheetName(t.id, &used));
    worksheet_write_string(front, row, 0, names.back().c_str(), nullptr);
    worksheet_write_string(front, row++, 1, t.title.c_str(), nullptr);
  }
  worksheet_set_column(front, 0, 0, 40, nullptr);
  worksheet_set_column(front, 1, 1, 80, nullptr);
  for (size_t ti = 0; ti < r.tables.size(); ++ti) {
    const Table& t = r.tables[ti];
    lxw_worksheet* ws = workbook_add_worksheet(wb, names[ti].c_str());
    std::vector<size_t> width(t.columns.size(), 8);
    for (size_t c = 0; c < t.columns.size(); ++c) {
      const std::string h = HeaderWithUnit(t.columns[c]);
      worksheet_write_string(ws, 0, static_cast<lxw_col_t>(c), h.c_str(), bold);
      width[c] = std::max(width[c], h.size() + 2);
    }
    lxw_row_t y = 1;
    for (const auto& cells : t.rows) {
      for (size_t c = 0; c < t.columns.size() && c < cells.size(); ++c) {
        const auto col = static_cast<lxw_col_t>(c);
        const Cell& cell = cells[c];
        if (const auto* i = std::get_if<int64_t>(&cell.value)) {
          worksheet_write_number(ws, y, col, static_cast<double>(*i), nullptr);
          width[c] = std::max<size_t>(width[c], 12);
        } else if (const auto* d = std::get_if<double>(&cell.value)) {
          worksheet_write_number(ws, y, col, *d, nullptr);
          width[c] = std::max<size_t>(width[c], 12);
        } else if (const auto* s = std::get_if<std::string>(&cell.value)) {
          worksheet_write_string(ws, y, col, s->c_str(), nullptr);
          width[c] = std::max(width[c], std::min<size_t>(s->size() + 2, 60));
        }
      }
      ++y;
    }
    for (size_t c = 0; c < t.columns.size(); ++c)
      worksheet_set_column(ws, static_cast<lxw_col_t>(c), static_cast<lxw_col_t>(c), static_cast<double>(width[c]),
                           nullptr);
    worksheet_freeze_panes(ws, 1, 0);
    if (!t.columns.empty())
      worksheet_autofilter(ws, 0, 0, y > 1 ? y - 1 : 0, static_cast<lxw_col_t>(t.columns.size() - 1));
  }
  const lxw_error err = workbook_close(wb);
  if (err != LXW_NO_ERROR) return DataLoss(fmt::format("{}: cannot write the workbook: {}", path, lxw_strerror(err)));
  return OkStatus();
}

}  // namespace mlprof
