import CTurboJPEG
import Glibc

/// libjpeg-turbo's 1/8-scale decodes through the TurboJPEG 2.1 API: the reference the
/// prototype must match, and the baseline it is timed against.
final class TurboReference {
    private let handle: tjhandle

    init() {
        handle = tjInitDecompress()!
    }

    deinit { tjDestroy(handle) }

    /// TurboJPEG's message for the last failure on this handle.
    var lastError: String { String(cString: tjGetErrorStr2(handle)) }

    /// Image width, height and TurboJPEG subsampling, or nil when TurboJPEG rejects the header.
    func header(_ bytes: UnsafeBufferPointer<UInt8>) -> (width: Int, height: Int, subsampling: Int32)? {
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let status = tjDecompressHeader3(handle, bytes.baseAddress, UInt(bytes.count), &width, &height, &subsampling, &colorspace)
        // Four-component files are outside the prototype; their raw planes would not fit
        // the three this reference allocates.
        guard status == 0, subsampling >= 0, colorspace != TJCS_CMYK.rawValue, colorspace != TJCS_YCCK.rawValue else {
            return nil
        }
        return (Int(width), Int(height), subsampling)
    }

    /// Planes of a 1/8-scale raw (YUV) decode as TurboJPEG lays them out.
    final class Planes {
        let widths: [Int]
        let heights: [Int]
        /// Ten allocations (libjpeg's component limit), each with slack past the plane
        /// TurboJPEG should write: a damaged file with more components, or planes larger
        /// than the header promised, must not let the reference decode corrupt the heap.
        let storage: [UnsafeMutablePointer<UInt8>]

        init(widths: [Int], heights: [Int], capacity: Int) {
            self.widths = widths
            self.heights = heights
            storage = (0..<10).map { _ in
                let plane = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
                plane.initialize(repeating: 0, count: capacity)
                return plane
            }
        }

        deinit { for plane in storage { plane.deallocate() } }
    }

    /// Allocates the planes a 1/8-scale raw decode of this image fills.
    func makePlanes(width: Int, height: Int, subsampling: Int32) -> Planes? {
        let scaledWidth = Int32((width + 7) / 8)
        let scaledHeight = Int32((height + 7) / 8)
        let count = subsampling == TJSAMP_GRAY.rawValue ? 1 : 3
        let indices = 0..<Int32(count)
        let widths = indices.map { Int(tjPlaneWidth($0, scaledWidth, subsampling)) }
        let heights = indices.map { Int(tjPlaneHeight($0, scaledHeight, subsampling)) }
        guard !widths.contains(where: { $0 <= 0 }), !heights.contains(where: { $0 <= 0 }) else {
            return nil
        }
        let capacity = (Int(scaledWidth) + 64) * (Int(scaledHeight) + 64)
        // Damaged headers can claim 65535x65535; such files are truncated garbage that
        // the prototype refuses, and are left out of the comparison.
        guard capacity <= 8 << 20 else { return nil }
        return Planes(widths: widths, heights: heights, capacity: capacity)
    }

    /// libjpeg-turbo's 1/8-scale raw decode; false on an error or (with `strict`) a warning.
    func decodeYUV(_ bytes: UnsafeBufferPointer<UInt8>, width: Int, height: Int, into planes: Planes, strict: Bool) -> Bool {
        let flags = strict ? Int32(TJFLAG_STOPONWARNING) : 0
        var strides = planes.widths.map { Int32($0) }
        var pointers: [UnsafeMutablePointer<UInt8>?] = planes.storage
        return tjDecompressToYUVPlanes(
            handle, bytes.baseAddress, UInt(bytes.count), &pointers,
            Int32((width + 7) / 8), &strides, Int32((height + 7) / 8), flags) == 0
    }

    /// libjpeg-turbo's 1/8-scale decode to packed pixels (RGB, or grey for a grey JPEG).
    func decodePixels(_ bytes: UnsafeBufferPointer<UInt8>, width: Int, height: Int, grey: Bool, into buffer: UnsafeMutablePointer<UInt8>) -> Bool {
        let format = grey ? TJPF_GRAY : TJPF_RGB
        return tjDecompress2(
            handle, bytes.baseAddress, UInt(bytes.count), buffer,
            Int32((width + 7) / 8), 0, Int32((height + 7) / 8), format.rawValue, 0) == 0
    }
}
