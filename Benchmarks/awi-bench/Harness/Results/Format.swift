import Foundation

/// Number formatting for the tables and the report: short, fixed significant digits, units attached.
public enum Format {
    /// Seconds as ns/µs/ms/s with three significant digits.
    public static func seconds(_ value: Double?) -> String {
        guard let value else { return "-" }
        switch value {
        case ..<1e-6: return significant(value * 1e9) + " ns"
        case ..<1e-3: return significant(value * 1e6) + " µs"
        case ..<1: return significant(value * 1e3) + " ms"
        default: return significant(value) + " s"
        }
    }

    /// A throughput with its unit, with k/M prefixes for large counts.
    public static func rate(_ value: Double?, unit: String?) -> String {
        guard let value else { return "-" }
        let unit = unit ?? "/s"
        switch value {
        case 1e7...: return significant(value / 1e6) + "M " + unit
        case 1e4...: return significant(value / 1e3) + "k " + unit
        default: return significant(value) + " " + unit
        }
    }

    /// Bytes as MiB.
    public static func bytes(_ value: Int?) -> String {
        guard let value else { return "-" }
        return String(format: "%.0f MiB", Double(value) / 1_048_576)
    }

    /// A ratio like `1.03×`.
    public static func ratio(_ value: Double?) -> String {
        guard let value else { return "-" }
        return (value >= 10 ? String(format: "%.1f", value) : String(format: "%.2f", value)) + "×"
    }

    /// Three significant digits, no exponent.
    public static func significant(_ value: Double) -> String {
        // Thresholds just below the next decade, so 99.96 prints as "100", not "100.0".
        switch abs(value) {
        case 99.95...: String(format: "%.0f", value)
        case 9.995...: String(format: "%.1f", value)
        default: String(format: "%.2f", value)
        }
    }
}
