/// Text made safe for HTML and SVG, and the page's small tables.
enum HTML {
    /// `text` with `&`, `<`, `>` and quotes escaped (element content and attribute values alike).
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A table of `rows` under `header`, every cell escaped; `classes` gives a row its class.
    static func table(header: [String], rows: [[String]], className: String = "", rowClasses: [String]? = nil) -> String {
        var html = "<table class=\"\(className)\"><thead><tr>" + header.map { "<th>\(escape($0))</th>" }.joined() + "</tr></thead><tbody>\n"
        for (index, row) in rows.enumerated() {
            let rowClass = rowClasses.map { " class=\"\($0[index])\"" } ?? ""
            html += "<tr\(rowClass)>" + row.map { "<td>\(escape($0))</td>" }.joined() + "</tr>\n"
        }
        return html + "</tbody></table>"
    }
}
