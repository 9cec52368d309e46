import CTiff
import Foundation
import AsyncWebImage

/// Owns one libtiff handle over a copy of a file's bytes, for one decode
/// or one multi-page decoder.
///
/// A class (not `Sendable`) so that the handle is closed and the bytes
/// freed exactly once. libtiff reads through the shim's memory callbacks
/// and maps the copy, so strips and tiles are read in place. Errors go to
/// this handle's own buffer (libtiff's global handlers are process-wide
/// and print), warnings are dropped, and libtiff refuses any single
/// allocation over the decode's memory budget.
final class TIFFHandle {
    let raw: OpaquePointer
    private let bytes: UnsafeMutableRawBufferPointer
    private let memory: UnsafeMutablePointer<CTiffMemory>
    private let errors: UnsafeMutablePointer<CTiffErrors>

    /// Opens `data` and reads its first directory.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` with libtiff's message.
    init(_ data: Data, maxSingleAllocation: Int) throws(ImageError) {
        guard !data.isEmpty else { throw .undecodable(.tiff, "no data") }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 16)
        data.withUnsafeBytes { bytes.copyMemory(from: $0) }
        let memory = UnsafeMutablePointer<CTiffMemory>.allocate(capacity: 1)
        memory.initialize(to: CTiffMemory(bytes: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), size: UInt64(data.count), offset: 0))
        let errors = UnsafeMutablePointer<CTiffErrors>.allocate(capacity: 1)
        errors.initialize(to: CTiffErrors())
        self.bytes = bytes
        self.memory = memory
        self.errors = errors
        guard let raw = CTiff_openMemory(memory, errors, tmsize_t(max(0, maxSingleAllocation))) else {
            let error = Self.error(errors, "not a TIFF libtiff can open")
            bytes.deallocate()
            memory.deallocate()
            errors.deallocate()
            throw error
        }
        self.raw = raw
    }

    deinit {
        TIFFClose(raw)
        bytes.deallocate()
        memory.deallocate()
        errors.deallocate()
    }

    /// The error libtiff recorded, or `fallback`; "truncated" when libtiff
    /// read past the data.
    func error(_ fallback: String) -> ImageError {
        Self.error(errors, fallback)
    }

    private static func error(_ errors: UnsafeMutablePointer<CTiffErrors>, _ fallback: String) -> ImageError {
        guard errors.pointee.hasError != 0 else { return .undecodable(.tiff, fallback) }
        let message = withUnsafeBytes(of: &errors.pointee.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        errors.pointee.hasError = 0
        let lowered = message.lowercased()
        let truncated = lowered.contains("read error") || lowered.contains("unexpected end") || lowered.contains("past end")
        return .undecodable(.tiff, (truncated ? "truncated: " : "") + message)
    }

    /// Throws when libtiff read the current directory only in part: a tag
    /// whose values lie past the end of the data (it ignores the tag and
    /// would decode something the file does not hold, a palette page as grey).
    func checkDirectoryComplete() throws(ImageError) {
        guard errors.pointee.tagReadPastData != 0 else { return }
        errors.pointee.tagReadPastData = 0
        throw .undecodable(.tiff, "truncated: a tag of the directory lies past the end of the data")
    }

    /// The number of directories in the main chain (pages, reduced-resolution images).
    var directoryCount: Int { Int(TIFFNumberOfDirectories(raw)) }

    /// Makes directory `index` of the main chain current.
    func select(directory index: Int) throws(ImageError) {
        guard TIFFSetDirectory(raw, tdir_t(index)) != 0 else { throw error("no directory \(index)") }
    }

    /// Makes the SubIFD at `offset` current.
    func select(subdirectoryAt offset: UInt64) throws(ImageError) {
        guard TIFFSetSubDirectory(raw, offset) != 0 else { throw error("no SubIFD at \(offset)") }
    }
}
