public import Foundation

/// Everything one run produced, as `--json FILE` writes it and `--compare`
/// and `--from` read it back: the rows, what is needed to judge them
/// (options, machine load before and after), how to present them (the
/// headline sections) and the images beside them (the quality crops).
public struct BenchmarkDocument: Sendable, Codable, Equatable {
    /// Always "awi-bench"; a file without it is not ours.
    public var tool = "awi-bench"
    /// The format's version: 1 before suites, intervals and reports; 2 since.
    public var version = 2
    /// The machine and its load.
    public var environment: RunEnvironment
    /// `--quick` was given.
    public var quick: Bool
    /// `--duration-scale`.
    public var durationScale: Double
    /// The suites selected (`headline` for a default run).
    public var suites: [String]?
    /// The scenarios selected by name (version 1), or that ran (version 2).
    public var scenarios: [String]
    /// `--corpus DIR`, when given.
    public var corpus: String?
    /// What a ratio is.
    public var ratioDefinition = "baseline time / our time on the row's basis clock (above 1 = faster than the baseline)"
    /// One per case.
    public var rows: [ResultRow]
    /// How the headline presents the rows.
    public var headline: [HeadlineSection]?
    /// Pictures that go with the rows (the 4× quality crops).
    public var images: [ReportImage]?
    /// Wall seconds each scenario took.
    public var scenarioSeconds: [String: Double]?
    /// Targets met.
    public var targetsMet: Int
    /// Targets measured.
    public var targetsMeasured: Int
    /// Cases that failed to run.
    public var errors: Int
    /// The last line of the text output.
    public var summary: String

    /// A document of `rows`, its tallies computed from them.
    public init(
        environment: RunEnvironment, quick: Bool, durationScale: Double, suites: [String], scenarios: [String],
        corpus: String?, rows: [ResultRow], headline: [HeadlineSection], images: [ReportImage]
    ) {
        self.environment = environment
        self.quick = quick
        self.durationScale = durationScale
        self.suites = suites
        self.scenarios = scenarios
        self.corpus = corpus
        self.rows = rows
        self.headline = headline
        self.images = images
        let table = ResultTable(rows: rows)
        (targetsMet, targetsMeasured, errors) = table.tally
        summary = table.summaryLine
    }

    /// Reads a document `--json` wrote.
    ///
    /// - Throws: ``BenchmarkDocument/ReadError``: the file is missing or unreadable, or is not awi-bench's JSON.
    public static func read(from url: URL) throws(ReadError) -> BenchmarkDocument {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .unreadable(url.path, "\(error.localizedDescription)") }
        let document: BenchmarkDocument
        do { document = try JSONDecoder().decode(BenchmarkDocument.self, from: data) } catch {
            throw .notADocument(url.path, "\(error)")
        }
        guard document.tool == "awi-bench" else { throw .notADocument(url.path, "its tool is \(document.tool), not awi-bench") }
        return document
    }

    /// The document as pretty-printed JSON with sorted keys (stable diffs between runs).
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    /// Why a document could not be read.
    public enum ReadError: Error, CustomStringConvertible, Equatable {
        /// The file cannot be read (path, reason).
        case unreadable(String, String)
        /// The bytes are not awi-bench's JSON (path, reason).
        case notADocument(String, String)

        public var description: String {
            switch self {
            case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
            case .notADocument(let path, let reason): "\(path) is not an awi-bench --json file: \(reason)"
            }
        }
    }
}

/// One section of the headline: a title and the scenarios whose rows it shows.
public struct HeadlineSection: Sendable, Codable, Equatable {
    /// How the section lays out its rows.
    public enum Layout: String, Sendable, Codable {
        /// One line per row: ours, the baseline, the ratio and its interval, the target.
        case rows
        /// One line per ``ResultRow/group`` (a class of image): speed against
        /// each baseline and the quality metrics of each candidate, side by side.
        case groups
    }

    /// The section's heading.
    public var title: String
    /// The scenarios it shows, in order.
    public var scenarios: [String]
    /// How.
    public var layout: Layout

    /// A section titled `title` of `scenarios`' rows.
    public init(title: String, scenarios: [String], layout: Layout = .rows) {
        self.title = title
        self.scenarios = scenarios
        self.layout = layout
    }
}

/// A picture the report embeds: a PNG file and what it shows.
public struct ReportImage: Sendable, Codable, Equatable {
    /// A heading ("baseline JPEG, lowest").
    public var title: String
    /// What the picture shows, in a sentence.
    public var caption: String?
    /// The PNG, an absolute path or one relative to the JSON file.
    public var path: String

    /// A picture at `path`.
    public init(title: String, caption: String?, path: String) {
        self.title = title
        self.caption = caption
        self.path = path
    }
}
