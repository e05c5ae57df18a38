/// A plain-text table for a terminal: columns as wide as their widest cell, two spaces apart, numbers aligned right.
enum TextTable {
    /// The header, a rule of dashes, and one line per row; the columns in `leftAligned` are padded on the right.
    static func lines(header: [String], rows: [[String]], leftAligned: Set<Int>) -> [String] {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                leftAligned.contains(column)
                    ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return [line(header), rule] + rows.map(line)
    }
}
