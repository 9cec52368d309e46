/// The numbers of the quality helper's summary lines (one line per
/// candidate of a group: `{"candidate": "pyvips", "ssimulacra2_median": 84.4, …}`)
/// as ``ResultRow/metrics``: `candidate/field`, nested objects flattened as
/// `candidate/field/key`. Whatever numbers the helper adds (more references,
/// more counts) come through without a change here.
enum QualityMetrics {
    static func flattened(_ lines: [[String: Any]]) -> [String: Double] {
        var metrics: [String: Double] = [:]
        func add(_ value: Any, at key: String) {
            if let number = value as? Double, number.isFinite {
                metrics[key] = number
            } else if let nested = value as? [String: Any] {
                for (name, inner) in nested { add(inner, at: key + "/" + name) }
            }
        }
        for line in lines {
            guard let candidate = line["candidate"] as? String else { continue }
            for (field, value) in line where field != "candidate" && field != "group" {
                add(value, at: candidate + "/" + field)
            }
        }
        return metrics
    }
}
