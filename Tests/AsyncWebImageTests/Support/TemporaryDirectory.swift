import Foundation

/// A fresh directory under the system's temporary directory, removed (with
/// everything in it) when released.
final class TemporaryDirectory {
    let url: URL
    var path: String { url.path }

    init(_ label: String = "awi") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory (not created).
    func appending(_ component: String) -> URL {
        url.appendingPathComponent(component, isDirectory: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
