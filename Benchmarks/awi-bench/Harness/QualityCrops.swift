import AWIBenchResults
import Foundation

/// The 4× crops the quality helper writes (`crops.json` beside the PNGs:
/// one object per sheet with its `png` and, as the helper gives them, its
/// `class`, `kind`, `file` and `scores` per candidate), as report images.
enum QualityCrops {
    /// The crops listed in `directory/crops.json`, in its order; none when it is missing.
    static func images(in directory: String) -> [ReportImage] {
        let url = URL(fileURLWithPath: directory).appendingPathComponent("crops.json")
        guard let data = try? Data(contentsOf: url),
              let sheets = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
        return sheets.compactMap { sheet in
            guard let png = sheet["png"] as? String else { return nil }
            let title = [sheet["class"] as? String, (sheet["kind"] as? String).map { $0.replacingOccurrences(of: "-", with: " ") }]
                .compactMap { $0 }.joined(separator: ", ")
            var caption: [String] = []
            if let file = sheet["file"] as? String { caption.append(file) }
            if let scores = sheet["scores"] as? [String: Any] {
                let numbers = scores.compactMap { key, value in (value as? Double).map { (key, $0) } }.sorted { $0.0 < $1.0 }
                if !numbers.isEmpty {
                    caption.append("SSIMULACRA 2: " + numbers.map { "\($0.0) \(Format.significant($0.1))" }.joined(separator: ", "))
                }
            }
            caption.append("panels: the reference, then each candidate, 4× nearest-neighbour, where the library departs most from the reference")
            return ReportImage(title: title.isEmpty ? (png as NSString).lastPathComponent : title, caption: caption.joined(separator: "; "), path: png)
        }
    }
}
